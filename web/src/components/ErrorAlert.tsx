import { Alert, Anchor, Button, Code, CopyButton, Group, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { IconAlertTriangle } from '@tabler/icons-react';
import { toApiError, type ApiError } from '../api/errors';

interface ErrorAlertProps {
  error: unknown;
  /** Heading above the sentence; default the failure's own title ("Could not log in", "Not allowed"…). */
  title?: string;
  /** Shows a "Try again" button. */
  onRetry?: () => void;
}

/**
 * How every screen shows a failed request: a title and a sentence for people (api/messages.ts). What
 * is for developers and support (the server's own message, the API's suggestion written for API
 * clients, the error code and status, the request id that finds the server's log line) waits behind
 * "Details". Never hides a 403.
 */
export function ErrorAlert({ error, title, onRetry }: ErrorAlertProps) {
  const e = toApiError(error);
  return (
    <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title={title ?? e.title} role="alert">
      <Stack gap={6}>
        <Text size="sm" data-testid="error-message">
          {e.message}
        </Text>
        <ErrorDetails error={e} />
        {onRetry && (
          <Group>
            <Button size="xs" variant="default" onClick={onRetry}>
              Try again
            </Button>
          </Group>
        )}
      </Stack>
    </Alert>
  );
}

/** The "Details" toggle of a failure: the server's message and suggestion, the code, the request id. */
export function ErrorDetails({ error }: { error: ApiError }) {
  const e = error;
  const [open, setOpen] = useState(false);
  const server = e.serverMessage && e.serverMessage !== e.message ? e.serverMessage : null;
  return (
    <>
      <Group gap="xs">
        <Anchor
          component="button"
          type="button"
          size="xs"
          c="dimmed"
          aria-expanded={open}
          onClick={() => setOpen((d) => !d)}
        >
          {open ? 'Hide details' : 'Details'}
        </Anchor>
      </Group>
      {open && (
        <Stack gap={4} data-testid="error-details">
          {server && (
            <Text size="xs" data-testid="server-message">
              The server said: {server}
            </Text>
          )}
          {e.suggestion && <Text size="xs">{e.suggestion}</Text>}
          <Group gap="xs" wrap="wrap">
            <Text size="xs" c="dimmed">
              Error {e.code}
              {e.status ? ` (HTTP ${e.status})` : ''}
            </Text>
            {e.requestId && <RequestId id={e.requestId} />}
          </Group>
        </Stack>
      )}
    </>
  );
}

/** A request id that copies itself on click. */
export function RequestId({ id }: { id: string }) {
  return (
    <CopyButton value={id}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : 'Copy request id'} withArrow>
          <UnstyledButton onClick={copy} aria-label={`Request id ${id}, copy`}>
            <Text size="xs" c="dimmed" component="span">
              request id <Code data-testid="request-id">{id}</Code>
            </Text>
          </UnstyledButton>
        </Tooltip>
      )}
    </CopyButton>
  );
}
