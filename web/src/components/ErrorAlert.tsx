import { Alert, Button, Code, CopyButton, Group, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core';
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
 * How every screen shows a failed request: the server's message, its suggestion when it gave one, the
 * error code and the request id (copyable, to find the server's log line). Never hides a 403.
 */
export function ErrorAlert({ error, title, onRetry }: ErrorAlertProps) {
  const e = toApiError(error);
  return (
    <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title={title ?? titleFor(e.status)} role="alert">
      <Stack gap={6}>
        <Text size="sm" data-testid="error-message">{e.message}</Text>
        {e.suggestion && <Text size="sm">{e.suggestion}</Text>}
        <Group gap="xs" wrap="wrap">
          <Text size="xs" c="dimmed">{e.code}{e.status ? ` · HTTP ${e.status}` : ''}</Text>
          {e.requestId && <RequestId id={e.requestId} />}
        </Group>
        {onRetry && (
          <Group>
            <Button size="xs" variant="default" onClick={onRetry}>Try again</Button>
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

function titleFor(status: number): string {
  if (status === 403) return 'Not allowed';
  if (status === 404) return 'Not found';
  if (status === 0) return 'No answer from the server';
  if (status === 422) return 'Please check the form';
  if (status === 409) return 'Not possible as things stand';
  return 'Something went wrong';
}
