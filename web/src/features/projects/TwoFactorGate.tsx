import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconShieldLock } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { notifySuccess } from '../../components/notify';
import { useSessions } from '../account/security-api';
import { useMe } from '../auth/api';
import { projectKeys } from './api';

/**
 * Whether this browser's session signed in with a password alone (no second factor, no SSO), as the
 * account's sessions list says; undefined while it loads, false when it cannot be read.
 */
export function usePasswordOnlySession(): boolean | undefined {
  const sessions = useSessions();
  // Without the list (an error), the API's own 403s say it.
  if (sessions.isError) return false;
  if (!sessions.data) return undefined;
  return sessions.data.find((s) => s.current)?.method === 'password';
}

/**
 * What a member of a project that requires two-factor sign-in sees instead of the project while their
 * session signed in with a password alone (the API answers 403 TWO_FACTOR_REQUIRED to every call but
 * their own removal): set a factor up, or leave the project.
 */
export function TwoFactorRequiredPage({ project }: { project: { id: string; name: string } }) {
  const me = useMe();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [confirmOpen, confirm] = useDisclosure(false);
  return (
    <Paper p="xl" maw={560} mx="auto" mt="xl" data-testid="two-factor-required">
      <Stack gap="md" align="flex-start">
        <IconShieldLock size={36} aria-hidden />
        <Title order={1} size="h3">
          {project.name} requires two-factor sign-in
        </Title>
        <Text>
          To open this project, set up an authenticator app or a passkey for your account, then sign out and sign in
          again with it. Setting up an authenticator app here also counts for this browser at once.
        </Text>
        <Group>
          <Button component={Link} to="/account/security">
            Set up two-factor sign-in
          </Button>
          {me.data && (
            <Button variant="default" color="red" onClick={confirm.open}>
              Leave this project
            </Button>
          )}
        </Group>
      </Stack>
      <ConfirmDialog
        opened={confirmOpen}
        onClose={confirm.close}
        title={`Leave ${project.name}?`}
        confirmLabel="Leave project"
        danger
        onConfirm={async () => {
          await unwrap(
            api.DELETE('/projects/{id}/members/{userId}', {
              params: { path: { id: project.id, userId: me.data!.id } },
            }),
          );
          await navigate('/projects', { replace: true });
          void qc.invalidateQueries({ queryKey: projectKeys.all });
          notifySuccess(`You left ${project.name}.`);
        }}
      >
        <Text size="sm">You lose access to this project at once; an owner or admin can add you back.</Text>
      </ConfirmDialog>
    </Paper>
  );
}
