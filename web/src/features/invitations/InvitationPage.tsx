import { Alert, Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconMailOpened } from '@tabler/icons-react';
import { useEffect } from 'react';
import { useNavigate, useParams } from 'react-router';
import { toApiError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ContentSkeleton } from '../../components/Loading';
import { notifySuccess } from '../../components/notify';
import { AppLayout } from '../../components/shell/AppLayout';
import { formatDate } from '../../lib/format';
import { useMe } from '../auth/api';
import { VerifyEmailBanner } from '../auth/VerifyEmailBanner';
import { useAcceptInvitation, useDeclineInvitation, useMyInvitations } from './api';
import { pendingInvitation } from './pendingInvitation';

/**
 * `/invitations/:invitationId`, the page the invitation mail links to (the server redirects
 * `/invitations/:id` here): the signed-in invitee accepts or declines. The server answers only
 * invitations addressed to the account's own verified address, so an unverified account is asked to
 * confirm its address first, and another account sees that the invitation is not addressed to it.
 */
export function InvitationPage() {
  const { invitationId = '' } = useParams();
  const me = useMe();
  const navigate = useNavigate();
  const invitations = useMyInvitations();
  const accept = useAcceptInvitation();
  const decline = useDeclineInvitation();
  // Remembered until answered: an invitee who must first confirm the address comes back here after.
  useEffect(() => pendingInvitation.set(invitationId), [invitationId]);
  const onAccept = () =>
    accept.mutate(invitationId, {
      onSuccess: async (m) => {
        notifySuccess(`You joined the project as ${m.role.toLowerCase()}.`);
        await navigate(`/p/${m.projectId}`, { replace: true });
      },
    });
  const onDecline = () =>
    decline.mutate(invitationId, {
      onSuccess: async () => {
        notifySuccess('You declined the invitation.');
        await navigate('/', { replace: true });
      },
    });

  const unverified = invitations.isError && toApiError(invitations.error).status === 403;
  const invitation = invitations.data?.find((i) => i.invitationId === invitationId);
  const closed = invitations.isSuccess && !invitation;
  // Nothing to come back to once it is answered, revoked or someone else's.
  useEffect(() => {
    if (closed) pendingInvitation.clear();
  }, [closed]);
  let body;
  if (invitations.isPending) body = <ContentSkeleton rows={3} />;
  else if (unverified) {
    body = (
      <Text size="sm">
        Confirm your address first: invitations are only shown to the verified owner of the address they were sent to.
        Open the link of the confirmation mail, then come back to this page.
      </Text>
    );
  } else if (invitations.isError)
    body = <ErrorAlert error={invitations.error} onRetry={() => void invitations.refetch()} />;
  else if (!invitation) {
    body = (
      <Alert color="gray" title="This invitation is not open" data-testid="invitation-missing">
        It was accepted, declined or revoked, or it was sent to another address than the one you are signed in with
        {me.data ? ` (${me.data.email})` : ''}. Ask the project&apos;s owner for a new one if needed.
      </Alert>
    );
  } else {
    const expired = invitation.status === 'expired';
    body = (
      <Stack gap="md">
        <Text>
          {invitation.invitedBy ?? 'A project administrator'} invited you to join <b>{invitation.projectName}</b> as{' '}
          <Badge variant="light">{invitation.role.toLowerCase()}</Badge>
        </Text>
        <Text size="sm" c="dimmed">
          {expired
            ? `This invitation expired on ${formatDate(invitation.expiresAt)}: ask for it to be sent again.`
            : `Valid until ${formatDate(invitation.expiresAt)}.`}
        </Text>
        {accept.isError && <ErrorAlert error={accept.error} />}
        {decline.isError && <ErrorAlert error={decline.error} />}
        <Group>
          <Button disabled={expired} loading={accept.isPending} onClick={onAccept}>
            Accept and join
          </Button>
          <Button variant="default" loading={decline.isPending} onClick={onDecline}>
            Decline
          </Button>
        </Group>
      </Stack>
    );
  }
  return (
    <AppLayout>
      <Stack maw={560} mx="auto" mt="xl" gap="lg">
        <VerifyEmailBanner />
        <Group gap="sm">
          <IconMailOpened size={28} aria-hidden />
          <Title order={1} size="h2">
            Invitation to a project
          </Title>
        </Group>
        <Paper p="xl">{body}</Paper>
      </Stack>
    </AppLayout>
  );
}
