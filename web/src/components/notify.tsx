import { Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconX } from '@tabler/icons-react';
import { toApiError } from '../api/errors';
import { ErrorDetails } from './ErrorAlert';

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

/**
 * A failure toast: `title` (default the failure's own, e.g. "Not allowed") and the sentence for people;
 * the code and request id behind "Details". Stays until closed when it has a request id.
 */
export function notifyError(error: unknown, title?: string): void {
  const e = toApiError(error);
  notifications.show({
    title: title ?? e.title,
    color: 'red',
    icon: <IconX size={18} />,
    autoClose: e.requestId ? false : 8000,
    closeButtonProps: CLOSE,
    message: (
      <Stack gap={4}>
        <Text size="sm">{e.message}</Text>
        <ErrorDetails error={e} />
      </Stack>
    ),
  });
}
