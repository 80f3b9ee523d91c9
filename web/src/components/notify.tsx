import { Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconX } from '@tabler/icons-react';
import { toApiError } from '../api/errors';

// Mantine's close button has no accessible name of its own.
const CLOSE = { 'aria-label': 'Close notification' };

/** A short success toast. */
export function notifySuccess(message: string): void {
  notifications.show({
    message,
    color: 'green',
    icon: <IconCheck size={18} />,
    autoClose: 4000,
    closeButtonProps: CLOSE,
  });
}

/** A failure toast with the server's message and request id (stays until closed when it has one). */
export function notifyError(error: unknown, title = 'Request failed'): void {
  const e = toApiError(error);
  notifications.show({
    title,
    color: 'red',
    icon: <IconX size={18} />,
    autoClose: e.requestId ? false : 8000,
    closeButtonProps: CLOSE,
    message: (
      <>
        <Text size="sm">{e.message}</Text>
        {e.requestId && (
          <Text size="xs" c="dimmed">
            request id {e.requestId}
          </Text>
        )}
      </>
    ),
  });
}
