import { ActionIcon, Anchor, Button, Code, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlus, IconRoute, IconTrash } from '@tabler/icons-react';
import { lazy, Suspense, useState } from 'react';
import { Link } from 'react-router';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { useProject } from '../projects/ProjectContext';
import { TRIGGER_CHOICES } from './triggerDraft';
import { useOpenedOnce } from '../../components/useOpenedOnce';
import { deleteWorkflow, useWorkflows, workflowKeys, type WorkflowSummary } from './api';

const CreateWorkflowModal = lazy(() =>
  import('./CreateWorkflowModal').then((m) => ({ default: m.CreateWorkflowModal })),
);

/** `/p/:projectId/workflows`: the project's automations with their trigger, state and executions. */
export function WorkflowsPage() {
  const { project } = useProject();
  const qc = useQueryClient();
  const list = useWorkflows(project.id);
  const [creating, setCreating] = useState(false);
  const createLoaded = useOpenedOnce(creating);
  const [deleting, setDeleting] = useState<WorkflowSummary | null>(null);
  const newButton = (
    <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
      New workflow
    </Button>
  );
  return (
    <>
      <PageHeader
        title="Workflows"
        description="Automations started by a tracked event: send mail, wait, branch on contact data, call webhooks, update contacts."
        actions={newButton}
      />
      <QueryState
        query={list}
        isEmpty={(p) => p.data.length === 0}
        empty={
          <EmptyState
            icon={<IconRoute size={28} />}
            title="No workflow yet"
            description={
              <>
                Create one and pick the event that starts it (for example <Code>signup</Code>), then add its steps in
                the editor and enable it.
              </>
            }
            action={
              <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
                Create a workflow
              </Button>
            }
          />
        }
      >
        {(page) => (
          <DataTable
            caption="Workflows"
            rows={page.data}
            rowKey={(w) => w.id}
            rowLabel={(w) => w.name}
            columns={[
              {
                key: 'name',
                header: 'Name',
                render: (w) => (
                  <Anchor component={Link} to={w.id} fw={600} size="sm">
                    {w.name}
                  </Anchor>
                ),
              },
              {
                key: 'trigger',
                header: 'Trigger',
                render: (w) =>
                  w.triggerType === 'EVENT' && w.triggerConfig.eventName ? (
                    <Code>{w.triggerConfig.eventName}</Code>
                  ) : (
                    <Text size="sm" c={w.triggerType === 'MANUAL' ? 'dimmed' : undefined}>
                      {TRIGGER_CHOICES.find((c) => c.value === w.triggerType)?.label ?? w.triggerType}
                      {w.triggerType === 'SCHEDULE' && w.triggerConfig.cron ? (
                        <>
                          {' '}
                          <Code>{w.triggerConfig.cron}</Code>
                        </>
                      ) : null}
                    </Text>
                  ),
              },
              { key: 'steps', header: 'Steps', align: 'right', render: (w) => w.stepCount - 1 },
              {
                key: 'enabled',
                header: 'State',
                render: (w) => (
                  <StatusBadge tone={w.enabled ? 'success' : 'neutral'}>
                    {w.enabled ? 'Enabled' : 'Disabled'}
                  </StatusBadge>
                ),
              },
              {
                key: 'executions',
                header: 'Executions',
                render: (w) => (
                  <Text size="sm" data-testid="executions">
                    {w.totalExecutions} total · {w.activeExecutions} active
                  </Text>
                ),
              },
              {
                key: 'actions',
                header: <VisuallyHidden>Actions</VisuallyHidden>,
                align: 'right',
                width: 60,
                render: (w) => (
                  <Tooltip label="Delete" withArrow>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={`Delete ${w.name}`}
                      onClick={() => setDeleting(w)}
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Tooltip>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      {createLoaded && (
        <Suspense>
          <CreateWorkflowModal projectId={project.id} opened={creating} onClose={() => setCreating(false)} />
        </Suspense>
      )}
      <ConfirmDialog
        opened={deleting !== null}
        onClose={() => setDeleting(null)}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete workflow"
        danger
        onConfirm={async () => {
          await deleteWorkflow(project.id, deleting!.id);
          notifySuccess(`${deleting!.name} deleted.`);
          void qc.invalidateQueries({ queryKey: workflowKeys.list(project.id) });
        }}
      >
        <Text size="sm">
          Its steps and the history of its executions are deleted; this cannot be undone. A workflow with running or
          waiting executions cannot be deleted: cancel them first.
        </Text>
      </ConfirmDialog>
    </>
  );
}
