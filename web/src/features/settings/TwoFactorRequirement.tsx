import { Anchor, Stack, Switch, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ApiError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { projectKeys } from '../projects/api';
import { needsRole } from '../projects/permissions';
import { useProject } from '../projects/ProjectContext';

/** `PATCH /users/@me/projects/:id {require2fa}` (OWNER or ADMIN, whose own session must be two-factor). */
const setRequire2fa = (id: string, require2fa: boolean) =>
  unwrap(api.PATCH('/users/@me/projects/{id}', { params: { path: { id } }, body: { require2fa } }));

/**
 * Project settings → General: "Require two-factor sign-in for members". Members signed in with a
 * password alone then see only a page asking them to set it up.
 */
export function TwoFactorRequirement() {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const save = useMutation({
    mutationFn: (on: boolean) => setRequire2fa(project.id, on),
    onSuccess: (_r, on) => {
      void qc.invalidateQueries({ queryKey: projectKeys.all });
      notifySuccess(on ? 'Members now need two-factor sign-in.' : 'Two-factor sign-in is no longer required.');
    },
  });
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        Sign-in security
      </Title>
      <Switch
        label="Require two-factor sign-in for members"
        description="Members who sign in with a password alone must set up an authenticator app or a passkey before they can open this project. Single sign-on counts as meeting it."
        checked={save.isPending ? save.variables : project.require2fa}
        disabled={!can.editProject || save.isPending}
        onChange={(e) => save.mutate(e.currentTarget.checked)}
      />
      {!can.editProject && (
        <Text size="sm" c="dimmed">
          {needsRole('owners and admins')}.
        </Text>
      )}
      {save.isError && <ErrorAlert error={save.error} title="The requirement was not changed" />}
      {save.error instanceof ApiError && save.error.code === 'TWO_FACTOR_REQUIRED' && (
        <Text size="sm">
          Set up two-factor sign-in for yourself first, under{' '}
          <Anchor component={Link} to="/account/security">
            Account → Security
          </Anchor>
          .
        </Text>
      )}
    </Stack>
  );
}
