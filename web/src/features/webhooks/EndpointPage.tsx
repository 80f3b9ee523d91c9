import { Anchor, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  IconArrowLeft,
  IconKey,
  IconPencil,
  IconPlayerPause,
  IconPlayerPlay,
  IconSend,
  IconTrash,
} from '@tabler/icons-react';
import { lazy, Suspense, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/errors';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { NotFound } from '../../components/NotFound';
import { notifyError, notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { formatDateTime } from '../../lib/format';
import { useProject } from '../projects/ProjectContext';
import { deleteEndpoint, rotateSecret, sendTest, updateEndpoint, useEndpoint, webhookKeys, type Endpoint } from './api';
import { answerText, DeliveryLog } from './DeliveryLog';
import { SecretModal } from './SecretModal';
import { EndpointStateBadge, eventsText } from './status';

// The form (zod, number and tags inputs) loads on the first Add/Edit press, not with the screen.
const EndpointModal = lazy(() => import('./EndpointModal').then((m) => ({ default: m.EndpointModal })));

/** The endpoint's settings and what can be done with it (OWNER, ADMIN): test, edit, pause, rotate, delete. */
function EndpointCard({ projectId, e, canEdit }: { projectId: string; e: Endpoint; canEdit: boolean }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [editing, edit] = useDisclosure();
  const [confirm, setConfirm] = useState<'delete' | 'disable' | 'rotate' | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: webhookKeys.all(projectId) });
  };
  const test = useMutation({
    mutationFn: () => sendTest(projectId, e.id),
    onSuccess: (d) => {
      refresh();
      if (d.status === 'SUCCEEDED') notifySuccess(`Test delivered: the endpoint answered ${answerText(d)}.`);
      else notifyError(new Error(`The endpoint did not accept the test (${answerText(d)}).`), 'Test not delivered');
    },
    onError: (err) => notifyError(err, 'Could not send the test'),
  });
  const enable = useMutation({
    mutationFn: () => updateEndpoint(projectId, e.id, { enabled: true }),
    onSuccess: () => {
      refresh();
      notifySuccess('Endpoint enabled: new events are sent to it again.');
    },
    onError: (err) => notifyError(err, 'Could not enable the endpoint'),
  });
  return (
    <Paper p="lg">
      <Stack gap="sm">
        <Group gap="xs">
          <EndpointStateBadge endpoint={e} />
          {e.disabledReason && (
            <Text size="sm" c="dimmed">
              {e.disabledReason}
            </Text>
          )}
        </Group>
        <Text size="sm">
          <b>Events:</b> {eventsText(e.events)}
        </Text>
        <Text size="sm">
          <b>Deliveries at once:</b>{' '}
          {e.concurrency === 1
            ? 'one at a time, every event in order'
            : `up to ${e.concurrency}; events about one email or contact go one at a time, in order`}
        </Text>
        {e.description && <Text size="sm">{e.description}</Text>}
        <Text size="xs" c="dimmed">
          Added {formatDateTime(e.createdAt)}; signed with its own secret (Standard Webhooks headers webhook-id,
          webhook-timestamp, webhook-signature).
        </Text>
        {canEdit ? (
          <Group gap="xs" wrap="wrap">
            <Button
              leftSection={<IconSend size={16} />}
              loading={test.isPending}
              onClick={() => test.mutate()}
              disabled={!e.enabled}
            >
              Send a test
            </Button>
            <Button variant="default" leftSection={<IconPencil size={16} />} onClick={edit.open}>
              Edit
            </Button>
            {e.enabled ? (
              <Button
                variant="default"
                leftSection={<IconPlayerPause size={16} />}
                onClick={() => setConfirm('disable')}
              >
                Disable
              </Button>
            ) : (
              <Button
                variant="default"
                leftSection={<IconPlayerPlay size={16} />}
                loading={enable.isPending}
                onClick={() => enable.mutate()}
              >
                Enable
              </Button>
            )}
            <Button variant="default" leftSection={<IconKey size={16} />} onClick={() => setConfirm('rotate')}>
              Rotate secret
            </Button>
            <Button
              color="red"
              variant="light"
              leftSection={<IconTrash size={16} />}
              onClick={() => setConfirm('delete')}
            >
              Delete
            </Button>
          </Group>
        ) : (
          <Text size="sm" c="dimmed">
            Only owners and admins of this project can test or change this endpoint.
          </Text>
        )}
      </Stack>
      <Suspense>{editing && <EndpointModal projectId={projectId} endpoint={e} opened onClose={edit.close} />}</Suspense>
      <ConfirmDialog
        opened={confirm === 'disable'}
        onClose={() => setConfirm(null)}
        title="Disable this endpoint?"
        confirmLabel="Disable"
        onConfirm={async () => {
          await updateEndpoint(projectId, e.id, { enabled: false });
          refresh();
        }}
      >
        <Text size="sm">
          No event is sent to {e.url} until you enable it again. Deliveries still waiting for a retry end as failed; you
          can send them again from the log.
        </Text>
      </ConfirmDialog>
      <ConfirmDialog
        opened={confirm === 'rotate'}
        onClose={() => setConfirm(null)}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        danger
        onConfirm={async () => {
          const r = await rotateSecret(projectId, e.id);
          setSecret(r.secret);
        }}
      >
        <Text size="sm">
          The current secret stops working at once: requests signed with the new one fail your endpoint&apos;s check
          until you put the new secret there.
        </Text>
      </ConfirmDialog>
      <ConfirmDialog
        opened={confirm === 'delete'}
        onClose={() => setConfirm(null)}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        danger
        onConfirm={async () => {
          await deleteEndpoint(projectId, e.id);
          qc.removeQueries({ queryKey: webhookKeys.one(projectId, e.id) });
          refresh();
          notifySuccess('Endpoint deleted.');
          void navigate(`/p/${projectId}/webhooks`);
        }}
      >
        <Text size="sm">
          No event is sent to {e.url} any more, and its delivery log is deleted with it. This cannot be undone.
        </Text>
      </ConfirmDialog>
      <SecretModal secret={secret} url={e.url} onClose={() => setSecret(null)} />
    </Paper>
  );
}

/** `/p/:projectId/webhooks/:endpointId`: one endpoint, its actions and its delivery log. */
export function EndpointPage() {
  const { project, can } = useProject();
  const { endpointId = '' } = useParams();
  const endpoint = useEndpoint(project.id, endpointId);
  if (endpoint.isError && endpoint.error instanceof ApiError && endpoint.error.status === 404)
    return (
      <NotFound
        title="Endpoint not found"
        description="It may have been deleted. The Webhooks screen lists the endpoints of this project."
      />
    );
  return (
    <>
      <Anchor component={Link} to={`/p/${project.id}/webhooks`} size="sm" mb="sm" display="inline-flex">
        <Group gap={4}>
          <IconArrowLeft size={14} /> Webhooks
        </Group>
      </Anchor>
      <PageHeader
        title="Webhook endpoint"
        description={<span style={{ wordBreak: 'break-all' }}>{endpoint.data?.url ?? ''}</span>}
      />
      <QueryState query={endpoint}>
        {(e) => (
          <Stack gap="xl">
            <EndpointCard projectId={project.id} e={e} canEdit={can.editProject} />
            <DeliveryLog projectId={project.id} endpointId={e.id} canRetry={can.editProject} />
          </Stack>
        )}
      </QueryState>
    </>
  );
}
