import { Anchor, Button, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus, IconWebhook } from '@tabler/icons-react';
import { lazy, Suspense, useState } from 'react';
import { Link } from 'react-router';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { formatDate } from '../../lib/format';
import { useProject } from '../projects/ProjectContext';
import { useEndpoints, type EndpointWithSecret } from './api';
import { SecretModal } from './SecretModal';
import { EndpointStateBadge, eventsText } from './status';

// The form (zod, number and tags inputs) loads on the first Add/Edit press, not with the screen.
const EndpointModal = lazy(() => import('./EndpointModal').then((m) => ({ default: m.EndpointModal })));

/**
 * `/p/:projectId/webhooks`: the project's event webhook endpoints; "Add endpoint" (OWNER, ADMIN)
 * shows the new endpoint's signing secret once. Each row opens the endpoint with its delivery log.
 */
export function WebhooksPage() {
  const { project, can } = useProject();
  const endpoints = useEndpoints(project.id);
  const [adding, add] = useDisclosure();
  const [created, setCreated] = useState<EndpointWithSecret | null>(null);
  const addButton = can.editProject && (
    <Button leftSection={<IconPlus size={16} />} onClick={add.open}>
      Add endpoint
    </Button>
  );
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Pigeon tells your own systems what happens in this project (a mail delivered, bounced or opened, a contact unsubscribed…) by sending signed HTTP requests to the addresses you add here."
        actions={addButton}
      />
      <QueryState
        query={endpoints}
        empty={
          <EmptyState
            icon={<IconWebhook size={28} />}
            title="No webhook endpoint yet"
            description="Add the address of a service of yours, pick the events it wants, and Pigeon sends each one there as it happens, with a log of every delivery. You can send a test right away."
            action={addButton || undefined}
          />
        }
      >
        {(list) => (
          <Stack gap="sm">
            <DataTable
              caption="Webhook endpoints, newest first"
              rows={list}
              rowKey={(e) => e.id}
              rowLabel={(e) => e.url}
              minWidth={640}
              columns={[
                {
                  key: 'url',
                  header: 'Endpoint',
                  render: (e) => (
                    <Stack gap={2}>
                      <Anchor
                        component={Link}
                        to={`/p/${project.id}/webhooks/${e.id}`}
                        size="sm"
                        fw={600}
                        style={{ wordBreak: 'break-all' }}
                      >
                        {e.url}
                      </Anchor>
                      {e.description && (
                        <Text size="xs" c="dimmed">
                          {e.description}
                        </Text>
                      )}
                    </Stack>
                  ),
                },
                {
                  key: 'events',
                  header: 'Events',
                  width: '30%',
                  render: (e) => (
                    <Text size="sm" lineClamp={2}>
                      {eventsText(e.events)}
                    </Text>
                  ),
                },
                { key: 'state', header: 'State', width: 170, render: (e) => <EndpointStateBadge endpoint={e} /> },
                {
                  key: 'created',
                  header: 'Added',
                  width: 140,
                  render: (e) => (
                    <Text size="sm" c="dimmed">
                      {formatDate(e.createdAt)}
                    </Text>
                  ),
                },
              ]}
            />
            {!can.editProject && (
              <Text size="sm" c="dimmed">
                Only owners and admins of this project can add or change endpoints.
              </Text>
            )}
          </Stack>
        )}
      </QueryState>
      <Suspense>
        {adding && <EndpointModal projectId={project.id} opened onClose={add.close} onCreated={(e) => setCreated(e)} />}
      </Suspense>
      <SecretModal secret={created?.secret ?? null} url={created?.url} onClose={() => setCreated(null)} />
    </>
  );
}
