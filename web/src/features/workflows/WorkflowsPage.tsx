import {
  ActionIcon,
  Anchor,
  Button,
  Code,
  Group,
  Modal,
  Select,
  Stack,
  Text,
  TextInput,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlus, IconRoute, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { z } from 'zod';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { FormError, useApiForm } from '../../components/forms';
import { notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { useProject } from '../projects/ProjectContext';
import { TRIGGER_CHOICES } from './triggerDraft';
import { createWorkflow, deleteWorkflow, useWorkflows, workflowKeys, type WorkflowSummary } from './api';

const rules = z
  .object({
    name: z.string().trim().min(1, 'Give the workflow a name').max(200),
    kind: z.enum(['EVENT', 'LATER']),
    eventName: z.string().trim().max(200),
  })
  .refine((v) => v.kind !== 'EVENT' || v.eventName.length > 0, {
    path: ['eventName'],
    message: 'Enter the event that starts it, e.g. signup',
  });

/**
 * "New workflow": name and trigger event (`POST /workflows`), or another trigger (a segment, a
 * schedule) picked on the trigger step afterwards (it starts as MANUAL), then opens the editor.
 */
function CreateWorkflowModal({
  projectId,
  opened,
  onClose,
}: {
  projectId: string;
  opened: boolean;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: '', kind: 'EVENT' as 'EVENT' | 'LATER', eventName: '' },
    schema: rules,
    submit: (v) =>
      createWorkflow(
        projectId,
        v.kind === 'EVENT'
          ? { name: v.name.trim(), eventName: v.eventName.trim() }
          : { name: v.name.trim(), triggerType: 'MANUAL' },
      ),
    onSuccess: (w) => {
      void qc.invalidateQueries({ queryKey: workflowKeys.list(projectId) });
      qc.setQueryData(workflowKeys.one(projectId, w.id), w);
      notifySuccess(
        w.triggerType === 'EVENT'
          ? `${w.name} created: add its steps, then enable it.`
          : `${w.name} created: pick its trigger on the trigger step, add its steps, then enable it.`,
      );
      void navigate(`/p/${projectId}/workflows/${w.id}`);
    },
  });
  const close = () => {
    form.reset();
    mutation.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={<Text fw={600}>New workflow</Text>} centered>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Name"
            placeholder="Welcome series"
            data-autofocus
            key={form.key('name')}
            {...form.getInputProps('name')}
          />
          <Select
            label="Starts"
            data={[
              { value: 'EVENT', label: 'When an event is tracked' },
              { value: 'LATER', label: 'Another way: a segment, a schedule, by hand (set on the trigger step)' },
            ]}
            allowDeselect={false}
            key={form.key('kind')}
            {...form.getInputProps('kind')}
          />
          {form.values.kind === 'EVENT' && (
            <TextInput
              label="Trigger event"
              description="The event name your app tracks (POST /v1/track) that starts the workflow for a contact"
              placeholder="signup"
              key={form.key('eventName')}
              {...form.getInputProps('eventName')}
            />
          )}
          <FormError error={formError} />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              Create workflow
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** `/p/:projectId/workflows`: the project's automations with their trigger, state and executions. */
export function WorkflowsPage() {
  const { project } = useProject();
  const qc = useQueryClient();
  const list = useWorkflows(project.id);
  const [creating, setCreating] = useState(false);
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
      <CreateWorkflowModal projectId={project.id} opened={creating} onClose={() => setCreating(false)} />
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
