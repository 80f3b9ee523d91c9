import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ErrorAlert } from '../../components/ErrorAlert';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { revokeSession, securityKeys, useSessions } from './security-api';

const METHOD: Record<string, string> = {
  password: 'password',
  totp: 'password and app code',
  recovery: 'password and recovery code',
  passkey: 'passkey',
  oidc: 'single sign-on',
};

/** One session: device, address, how it signed in, last use; revoke (not this one: log out does that). */
function SessionRow(props: {
  s: { id: string; current: boolean; device: string; ip: string | null; method: string; lastSeenAt: string };
  onDone: () => void;
}) {
  const { s } = props;
  const revoke = useMutation({ mutationFn: () => revokeSession(s.id), onSuccess: props.onDone });
  return (
    <Paper withBorder p="sm" data-testid="session-row">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div>
          <Group gap="xs">
            <Text fw={500}>{s.device}</Text>
            {s.current && <StatusBadge tone="success">This device</StatusBadge>}
          </Group>
          <Text size="xs" c="dimmed">
            {s.ip ?? 'Unknown address'} · signed in with {METHOD[s.method] ?? s.method} · last active{' '}
            {new Date(s.lastSeenAt).toLocaleString()}
          </Text>
          {revoke.isError && <ErrorAlert error={revoke.error} />}
        </div>
        {!s.current && (
          <Button
            variant="default"
            color="red"
            size="xs"
            style={{ flexShrink: 0 }}
            aria-label={`Sign out ${s.device}`}
            loading={revoke.isPending}
            onClick={() => revoke.mutate()}
          >
            Sign out
          </Button>
        )}
      </Group>
    </Paper>
  );
}

/** Account → Security: where the account is signed in, each session signed out on its own. */
export function SessionsListCard() {
  const qc = useQueryClient();
  const sessions = useSessions();
  return (
    <Paper p="lg">
      <Stack gap="md">
        <Title order={2} size="h4">
          Where you are signed in
        </Title>
        <QueryState query={sessions}>
          {(rows) => (
            <Stack gap="xs">
              {rows.map((s) => (
                <SessionRow
                  key={s.id}
                  s={s}
                  onDone={() => void qc.invalidateQueries({ queryKey: securityKeys.sessions })}
                />
              ))}
            </Stack>
          )}
        </QueryState>
      </Stack>
    </Paper>
  );
}
