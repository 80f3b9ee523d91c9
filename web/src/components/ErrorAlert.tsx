import { Alert, Anchor, Button, Code, CopyButton, Group, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { IconAlertTriangle } from '@tabler/icons-react';
import { toApiError } from '../api/errors';

interface ErrorAlertProps {
  error: unknown;
  /** Heading above the server's message; default "Something went wrong". */
  title?: string;
  /** Shows a "Try again" button. */
  onRetry?: () => void;
}

/**
 * How every screen shows a failed request: the server's message, a sentence for people. What is for
 * developers and support (the API's suggestion, written for API clients, the error code and status,
 * the request id that finds the server's log line) waits behind "Details". Never hides a 403.
 */
export function ErrorAlert({ error, title, onRetry }: ErrorAlertProps) {
  const e = toApiError(error);
  const [details, setDetails] = useState(false);
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title={title ?? titleFor(e.status, e.code)}
      role="alert"
    >
      <Stack gap={6}>
        <Text size="sm" data-testid="error-message">
          {e.message}
        </Text>
        <Group gap="xs">
          <Anchor
            component="button"
            type="button"
            size="xs"
            c="dimmed"
            aria-expanded={details}
            onClick={() => setDetails((d) => !d)}
          >
            {details ? 'Hide details' : 'Details'}
          </Anchor>
        </Group>
        {details && (
          <Stack gap={4} data-testid="error-details">
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

function titleFor(status: number, code: string): string {
  if (code === 'INVALID_CREDENTIALS') return 'Could not log in';
  if (status === 401) return 'Not signed in';
  if (status === 429) return 'Too many attempts: please wait';
  if (status === 413) return 'Too large';
  if (status === 503) return 'Busy: please try again shortly';
  if (status === 403) return 'Not allowed';
  if (status === 404) return 'Not found';
  if (status === 0) return 'No answer from the server';
  if (status === 422) return 'Please check the form';
  if (status === 409) return 'Not possible as things stand';
  return 'Something went wrong';
}
