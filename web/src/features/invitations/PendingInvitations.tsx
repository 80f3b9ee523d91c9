import { Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useNavigate } from 'react-router';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { formatDate } from '../../lib/format';
import { useAcceptInvitation, useDeclineInvitation, useMyInvitations } from './api';

/**
 * The signed-in user's open invitations, each with Accept and Decline (on the projects and welcome
 * screens). Shows nothing while there are none, or while the address is unconfirmed (the server lists
 * invitations only to the verified owner of the address; the banner asks for the confirmation).
 */
export function PendingInvitations() {
  const invitations = useMyInvitations();
  const accept = useAcceptInvitation();
  const decline = useDeclineInvitation();
  const navigate = useNavigate();
  const open = invitations.data?.filter((i) => i.status === 'pending') ?? [];
  if (open.length === 0) return null;
  const busy = accept.isPending || decline.isPending;
  return (
    <Paper p="lg" data-testid="pending-invitations">
      <Stack gap="md">
        <Title order={2} size="h4">
          {open.length === 1 ? 'You are invited to a project' : `You are invited to ${open.length} projects`}
        </Title>
        {accept.isError && <ErrorAlert error={accept.error} title="Could not accept the invitation" />}
        {decline.isError && <ErrorAlert error={decline.error} title="Could not decline the invitation" />}
        {open.map((i) => (
          <Group key={i.invitationId} justify="space-between" gap="sm">
            <Stack gap={2}>
              <Text size="sm">
                <b>{i.projectName}</b> as <Badge variant="light">{i.role.toLowerCase()}</Badge>
              </Text>
              <Text size="xs" c="dimmed">
                From {i.invitedBy ?? 'a project administrator'}, valid until {formatDate(i.expiresAt)}
              </Text>
            </Stack>
            <Group gap="xs">
              <Button
                size="xs"
                disabled={busy}
                aria-label={`Accept the invitation to ${i.projectName}`}
                onClick={() =>
                  accept.mutate(i.invitationId, {
                    onSuccess: async (m) => {
                      notifySuccess(`You joined ${i.projectName} as ${m.role.toLowerCase()}.`);
                      await navigate(`/p/${m.projectId}`);
                    },
                  })
                }
              >
                Accept
              </Button>
              <Button
                size="xs"
                variant="default"
                disabled={busy}
                aria-label={`Decline the invitation to ${i.projectName}`}
                onClick={() =>
                  decline.mutate(i.invitationId, { onSuccess: () => notifySuccess('You declined the invitation.') })
                }
              >
                Decline
              </Button>
            </Group>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
