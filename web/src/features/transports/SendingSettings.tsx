import { ActionIcon, Alert, Button, Card, Group, Stack, Text, ThemeIcon, Title, Tooltip } from '@mantine/core';
import {
  IconAlertTriangle,
  IconCheck,
  IconCircleCheck,
  IconCircleOff,
  IconPencil,
  IconPlugConnected,
  IconPlus,
  IconProgress,
  IconTrash,
  IconX,
} from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { QueryState } from '../../components/QueryState';
import { notifySuccess } from '../../components/notify';
import { useOpenedOnce } from '../../components/useOpenedOnce';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useProject } from '../projects/ProjectContext';
import { RulesEditor } from './RulesEditor';
import {
  deleteTransport,
  healthWords,
  testTransport,
  transportKeys,
  useRules,
  useTransports,
  type TestAnswer,
  type Transport,
  type TransportHealth,
} from './api';

// The dialog and its form rules load on its first opening, not with the tab.
const TransportModal = lazy(() => import('./TransportModal').then((m) => ({ default: m.TransportModal })));

const ICONS = { success: IconCircleCheck, warning: IconProgress, danger: IconAlertTriangle, neutral: IconCircleOff };
const COLORS = { success: 'teal', warning: 'yellow', danger: 'red', neutral: 'gray' };

/** The breaker's state as a sentence with an icon; the sentence may be long, so it wraps. */
function Health({ health, enabled = true }: { health: TransportHealth; enabled?: boolean }) {
  const h = enabled ? healthWords(health) : { tone: 'neutral' as const, text: 'Disabled' };
  const Icon = ICONS[h.tone];
  return (
    <Group gap={6} wrap="nowrap" align="flex-start">
      <ThemeIcon variant="transparent" color={COLORS[h.tone]} size={20} aria-hidden>
        <Icon size={18} />
      </ThemeIcon>
      <Text size="sm" data-testid="health">
        {h.text}
      </Text>
    </Group>
  );
}

/** Where a transport sends, in a few words (never a password: the API has none to give). */
function where(t: Transport): string {
  const s = t.settings;
  if ('url' in s) return s.url;
  return `SES ${s.region}${s.configurationSet ? `, set ${s.configurationSet}` : ''}`;
}

/**
 * `/p/:projectId/settings/sending`: the instance's default transport and the project's own (SMTP
 * relays, SES accounts) with their health, a test call for each, and the routing rules.
 */
export function SendingSettings() {
  const { project } = useProject();
  const qc = useQueryClient();
  const query = useTransports(project.id);
  const rules = useRules(project.id);
  const [editing, setEditing] = useState<Transport | null | 'new'>(null);
  const [deleting, setDeleting] = useState<Transport | null>(null);
  const [tested, setTested] = useState<(TestAnswer & { name: string }) | null>(null);
  const modalLoaded = useOpenedOnce(editing !== null);
  const test = useMutation({
    mutationFn: (t: Transport) => testTransport(project.id, t.id).then((r) => ({ ...r, name: t.name })),
    onMutate: () => setTested(null),
    onSuccess: (r) => setTested(r),
  });
  return (
    <Stack gap="xl">
      <QueryState query={query}>
        {(data) => (
          <Stack gap="md">
            <Card withBorder padding="md">
              <Group justify="space-between" wrap="wrap" gap="sm">
                <div>
                  <Text fw={600}>Default transport</Text>
                  <Text size="sm" c="dimmed">
                    {data.default.description}. Set on the server; used when no routing rule matches.
                  </Text>
                </div>
                <Health health={data.default.health} />
              </Group>
            </Card>
            {data.fallbacks.map((f) => (
              <Card key={f.id} withBorder padding="md">
                <Group justify="space-between" wrap="wrap" gap="sm">
                  <div>
                    <Text fw={600}>Server fallback {f.id.replace('fallback-', '')}</Text>
                    <Text size="sm" c="dimmed">
                      {f.description}. Set on the server; takes the default's mail when the default fails.
                    </Text>
                  </div>
                  <Health health={f.health} />
                </Group>
              </Card>
            ))}
            <Group justify="space-between" align="flex-end">
              <div>
                <Title order={3} size="h4">
                  Project transports
                </Title>
                <Text size="sm" c="dimmed">
                  Your own SMTP relays and SES accounts. Passwords and secret keys are stored encrypted and never shown.
                </Text>
              </div>
              <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')}>
                Add transport
              </Button>
            </Group>
            {test.error && <ErrorAlert error={test.error} title="The test could not run" />}
            {tested && (
              <Alert
                color={tested.ok ? 'teal' : 'red'}
                variant="light"
                icon={tested.ok ? <IconCheck size={18} /> : <IconX size={18} />}
                withCloseButton
                closeButtonLabel="Dismiss"
                onClose={() => setTested(null)}
                role="status"
              >
                {/* In the body, not the title: Mantine's teal title is under 4.5:1 on its light background. */}
                <Text size="sm" fw={600}>
                  {tested.ok ? `${tested.name} works` : `${tested.name} did not work`}
                </Text>
                <Text size="sm" data-testid="test-message">
                  {tested.message}
                </Text>
              </Alert>
            )}
            {data.transports.length === 0 ? (
              <Text size="sm" c="dimmed">
                No transports of this project yet: all its mail goes through the default one.
              </Text>
            ) : (
              <DataTable<Transport>
                caption="Project transports"
                rows={data.transports}
                rowKey={(t) => t.id}
                rowLabel={(t) => t.name}
                columns={[
                  {
                    key: 'name',
                    header: 'Name',
                    render: (t) => (
                      <>
                        <Text fw={500} size="sm">
                          {t.name}
                        </Text>
                        <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                          {where(t)}
                          {t.credentials === 'set' ? ' · credentials saved' : ''}
                        </Text>
                      </>
                    ),
                  },
                  {
                    key: 'health',
                    header: 'Health',
                    width: 240,
                    render: (t) => <Health health={t.health} enabled={t.enabled} />,
                  },
                  {
                    key: 'actions',
                    header: 'Actions',
                    width: 170,
                    render: (t) => (
                      <Group gap={4} wrap="nowrap">
                        <Button
                          size="compact-sm"
                          variant="default"
                          leftSection={<IconPlugConnected size={14} />}
                          loading={test.isPending && test.variables?.id === t.id}
                          onClick={() => test.mutate(t)}
                          aria-label={`Test ${t.name}`}
                        >
                          Test
                        </Button>
                        <Tooltip label="Edit">
                          <ActionIcon variant="subtle" aria-label={`Edit ${t.name}`} onClick={() => setEditing(t)}>
                            <IconPencil size={16} />
                          </ActionIcon>
                        </Tooltip>
                        <Tooltip label="Delete">
                          <ActionIcon
                            variant="subtle"
                            color="red"
                            aria-label={`Delete ${t.name}`}
                            onClick={() => setDeleting(t)}
                          >
                            <IconTrash size={16} />
                          </ActionIcon>
                        </Tooltip>
                      </Group>
                    ),
                  },
                ]}
              />
            )}
            <Stack gap="xs" mt="md">
              <Title order={3} size="h4">
                Routing rules
              </Title>
              <Text size="sm" c="dimmed">
                Checked from the top for each mail; the first that matches picks its transports. Mail no rule matches
                goes through the default transport{data.fallbacks.length > 0 ? ', then the server fallbacks' : ''}.
              </Text>
              <QueryState query={rules}>
                {(r) => (
                  <RulesEditor
                    key={JSON.stringify(r.rules) + data.transports.map((t) => t.id).join()}
                    projectId={project.id}
                    rules={r.rules}
                    transports={data.transports}
                    fallbacks={data.fallbacks.map((f) => f.id)}
                  />
                )}
              </QueryState>
            </Stack>
          </Stack>
        )}
      </QueryState>
      {modalLoaded && (
        <Suspense>
          <TransportModal
            key={editing === null ? 'closed' : editing === 'new' ? 'new' : editing.id}
            projectId={project.id}
            transport={editing === 'new' ? null : editing}
            opened={editing !== null}
            onClose={() => setEditing(null)}
          />
        </Suspense>
      )}
      <ConfirmDialog
        opened={deleting !== null}
        onClose={() => setDeleting(null)}
        title="Delete this transport?"
        confirmLabel="Delete transport"
        danger
        onConfirm={async () => {
          await deleteTransport(project.id, deleting!.id);
          void qc.invalidateQueries({ queryKey: transportKeys.all(project.id) });
          notifySuccess(`Transport “${deleting!.name}” deleted.`);
        }}
      >
        <Text size="sm">
          “{deleting?.name}” and its saved credentials are removed. A transport that a routing rule lists cannot be
          deleted: take it out of the rule first.
        </Text>
      </ConfirmDialog>
    </Stack>
  );
}
