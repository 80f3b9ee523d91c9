import { ActionIcon, Button, Group, Text, Tooltip } from '@mantine/core';
import { IconPencil, IconPlus, IconTags, IconTrash } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { notifySuccess } from '../../components/notify';
import { useProject } from '../projects/ProjectContext';
import { deleteTopic, topicKeys, useTopics, type Topic } from './api';
import { useOpenedOnce } from '../../components/useOpenedOnce';

// The dialog and its form rules (zod) load on its first opening, not with the list.
const TopicModal = lazy(() => import('./TopicModal').then((m) => ({ default: m.TopicModal })));

/** `/p/:projectId/topics`: the project's subscription topics with their members (`GET /topics`). */
export function TopicsPage() {
  const { project } = useProject();
  const qc = useQueryClient();
  const query = useTopics(project.id);
  const [editing, setEditing] = useState<Topic | null | 'new'>(null);
  const [deleting, setDeleting] = useState<Topic | null>(null);
  const modalLoaded = useOpenedOnce(editing !== null);
  const add = (
    <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')}>
      New topic
    </Button>
  );
  return (
    <>
      <PageHeader
        title="Topics"
        description="What your readers can choose to get: product news, release notes, a digest. Unsubscribing from everything still stops them all."
        actions={add}
      />
      <QueryState
        query={query}
        empty={
          <EmptyState
            icon={<IconTags size={28} />}
            title="No topics yet"
            description="Create a topic to let readers keep the mail they want instead of leaving for good, then send campaigns to it."
            action={add}
          />
        }
      >
        {(rows) => (
          <DataTable<Topic>
            caption="Topics"
            rows={rows}
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
                    {t.description && (
                      <Text size="xs" c="dimmed" lineClamp={1}>
                        {t.description}
                      </Text>
                    )}
                  </>
                ),
              },
              {
                key: 'default',
                header: 'Who is in it',
                width: 200,
                render: (t) => (
                  <StatusBadge tone="neutral">
                    {t.default === 'opt-out' ? 'Everyone until they leave' : 'Those who join'}
                  </StatusBadge>
                ),
              },
              {
                key: 'public',
                header: 'Preference page',
                width: 150,
                render: (t) =>
                  t.public ? (
                    <Text size="sm">Shown</Text>
                  ) : (
                    <Text size="sm" c="dimmed">
                      Hidden
                    </Text>
                  ),
              },
              {
                key: 'members',
                header: 'Members',
                width: 110,
                align: 'right',
                render: (t) => t.members.toLocaleString(),
              },
              {
                key: 'actions',
                header: 'Actions',
                width: 110,
                render: (t) => (
                  <Group gap={4} wrap="nowrap">
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
      </QueryState>
      {modalLoaded && (
        <Suspense>
          <TopicModal
            key={editing === null ? 'closed' : editing === 'new' ? 'new' : editing.id}
            projectId={project.id}
            topic={editing === 'new' ? null : editing}
            opened={editing !== null}
            onClose={() => setEditing(null)}
          />
        </Suspense>
      )}
      <ConfirmDialog
        opened={deleting !== null}
        onClose={() => setDeleting(null)}
        title="Delete this topic?"
        confirmLabel="Delete topic"
        danger
        onConfirm={async () => {
          await deleteTopic(project.id, deleting!.id);
          void qc.invalidateQueries({ queryKey: topicKeys.all(project.id) });
          notifySuccess(`Topic “${deleting!.name}” deleted.`);
        }}
      >
        <Text size="sm">
          “{deleting?.name}” and every contact’s choice about it are removed. The consent log keeps its entries. A topic
          that a campaign, template, workflow step or sign-up form uses cannot be deleted.
        </Text>
      </ConfirmDialog>
    </>
  );
}
