import { Anchor, Button, Group, Paper, Select, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlayerStop, IconRoute } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { QueryState } from '../../components/QueryState';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { notifySuccess } from '../../components/notify';
import {
  cancelAllExecutions,
  cancelExecution,
  useExecution,
  useExecutions,
  workflowKeys,
  type Execution,
  type ExecutionStatus,
  type Workflow,
} from './api';
import { runOutcome } from './graph';
import { triggerSentence } from './triggerDraft';
import { WorkflowCanvas } from './LazyCanvas';

const STATUSES: ExecutionStatus[] = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'];
const TONE: Record<string, Tone> = {
  RUNNING: 'warning',
  WAITING: 'warning',
  COMPLETED: 'success',
  EXITED: 'neutral',
  FAILED: 'danger',
  CANCELLED: 'neutral',
  PENDING: 'neutral',
  SKIPPED: 'neutral',
};
const live = (s: string) => s === 'RUNNING' || s === 'WAITING';
const when = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : '—';

/** Who an execution is for: the contact's address, or a short id once the contact is deleted. */
const contactName = (e: Pick<Execution, 'contactEmail' | 'contactId'>) =>
  e.contactEmail ?? `deleted contact ${e.contactId.slice(0, 8)}…`;

interface Props {
  projectId: string;
  workflow: Workflow;
  templateName: (id: string) => string | undefined;
}

/** One execution: its path on the graph (visited steps and links outlined) and each step's time and outcome. */
function ExecutionView({
  projectId,
  workflow,
  executionId,
  templateName,
  onBack,
}: Props & { executionId: string; onBack: () => void }) {
  const q = useExecution(projectId, workflow.id, executionId);
  const nameOf = (id: string) => workflow.steps.find((s) => s.id === id)?.name ?? 'a deleted step';
  return (
    <QueryState query={q}>
      {(e) => (
        <Stack gap="md" data-testid="execution-view">
          <Group justify="space-between">
            <Group gap="sm">
              <Title order={2} size="h4">
                Execution of{' '}
                <Anchor component={Link} to={`/p/${projectId}/contacts/${e.contactId}`} fz="inherit">
                  {contactName(e)}
                </Anchor>
              </Title>
              <StatusBadge tone={TONE[e.status]} data-testid="execution-status">
                {e.status}
              </StatusBadge>
            </Group>
            <Button variant="default" onClick={onBack}>
              Back to the list
            </Button>
          </Group>
          {e.exitReason && <Text size="sm">Reason: {e.exitReason}</Text>}
          <WorkflowCanvas workflow={workflow} templateName={templateName} runs={e.steps} height={520} />
          <Paper p={0} style={{ overflow: 'hidden' }}>
            <Table verticalSpacing="xs" horizontalSpacing="md" data-testid="execution-steps">
              <VisuallyHidden component="caption">Steps of this execution, in order</VisuallyHidden>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Step</Table.Th>
                  <Table.Th scope="col">Outcome</Table.Th>
                  <Table.Th scope="col">Started</Table.Th>
                  <Table.Th scope="col">Finished</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {e.steps.map((r) => (
                  <Table.Tr key={r.id} data-row={nameOf(r.stepId)}>
                    <Table.Td>{nameOf(r.stepId)}</Table.Td>
                    <Table.Td>
                      <StatusBadge tone={TONE[r.status]}>{runOutcome(r)}</StatusBadge>
                      {r.error && (
                        <Text size="xs" c="red.8">
                          {r.error}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{when(r.startedAt)}</Table.Td>
                    <Table.Td>{when(r.completedAt)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
        </Stack>
      )}
    </QueryState>
  );
}

/**
 * The Executions tab: the newest executions (`GET /workflows/:id/executions`, filterable by status)
 * with cancel for running or waiting ones, "cancel all" (confirmed), and one execution's path on the graph.
 */
export function ExecutionsTab(props: Props) {
  const { projectId, workflow } = props;
  const qc = useQueryClient();
  const [status, setStatus] = useState<ExecutionStatus | null>(null);
  const [viewing, setViewing] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState<Execution | null>(null);
  const [cancelAll, setCancelAll] = useState(false);
  const list = useExecutions(projectId, workflow.id, status ?? undefined);
  const refresh = () => void qc.invalidateQueries({ queryKey: workflowKeys.one(projectId, workflow.id) });

  if (viewing) return <ExecutionView {...props} executionId={viewing} onBack={() => setViewing(null)} />;
  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end">
        <Select
          label="Status"
          placeholder="All statuses"
          data={STATUSES}
          value={status}
          onChange={(v) => setStatus(v as ExecutionStatus | null)}
          clearable
          w={220}
        />
        <Button
          color="red"
          variant="light"
          leftSection={<IconPlayerStop size={16} />}
          onClick={() => setCancelAll(true)}
        >
          Cancel all
        </Button>
      </Group>
      <QueryState
        query={list}
        isEmpty={(p) => p.data.length === 0}
        empty={
          <EmptyState
            icon={<IconRoute size={28} />}
            title={status ? `No ${status.toLowerCase()} execution` : 'No execution yet'}
            description={
              status
                ? 'Pick another status, or clear the filter.'
                : `Enable the workflow, or start it for contacts by hand. ${triggerSentence(workflow)}`
            }
          />
        }
      >
        {(page) => (
          <Stack gap="xs">
            <Text size="sm" c="dimmed" data-testid="executions-count">
              {page.total} execution{page.total === 1 ? '' : 's'}
              {page.hasMore ? ' (newest 100 shown)' : ''}
            </Text>
            <DataTable
              caption="Executions of this workflow"
              rows={page.data}
              rowKey={(e) => e.id}
              rowLabel={contactName}
              columns={[
                { key: 'started', header: 'Started', render: (e) => when(e.createdAt) },
                {
                  key: 'contact',
                  header: 'Contact',
                  render: (e) => (
                    <Anchor component={Link} to={`/p/${projectId}/contacts/${e.contactId}`} size="sm">
                      {contactName(e)}
                    </Anchor>
                  ),
                },
                {
                  key: 'status',
                  header: 'Status',
                  render: (e) => <StatusBadge tone={TONE[e.status]}>{e.status}</StatusBadge>,
                },
                {
                  key: 'at',
                  header: 'Current step',
                  render: (e) =>
                    e.currentStepId ? (workflow.steps.find((s) => s.id === e.currentStepId)?.name ?? '—') : '—',
                },
                {
                  key: 'actions',
                  header: <VisuallyHidden>Actions</VisuallyHidden>,
                  align: 'right',
                  render: (e) => (
                    <Group gap="xs" justify="flex-end" wrap="nowrap">
                      <Button
                        size="compact-sm"
                        variant="default"
                        onClick={() => setViewing(e.id)}
                        aria-label={`View the path of ${contactName(e)}`}
                      >
                        View path
                      </Button>
                      {live(e.status) && (
                        <Button
                          size="compact-sm"
                          color="red"
                          variant="subtle"
                          onClick={() => setCancelling(e)}
                          aria-label={`Cancel the execution of ${contactName(e)}`}
                        >
                          Cancel
                        </Button>
                      )}
                    </Group>
                  ),
                },
              ]}
            />
          </Stack>
        )}
      </QueryState>
      <ConfirmDialog
        opened={cancelling !== null}
        onClose={() => setCancelling(null)}
        title="Cancel this execution?"
        confirmLabel="Cancel execution"
        danger
        onConfirm={async () => {
          await cancelExecution(projectId, workflow.id, cancelling!.id);
          notifySuccess('Execution cancelled.');
          refresh();
        }}
      >
        <Text size="sm">
          The execution of {cancelling ? contactName(cancelling) : ''} stops where it is: its pending delay or wait is
          removed and no further step runs. Mail already sent stays sent.
        </Text>
      </ConfirmDialog>
      <ConfirmDialog
        opened={cancelAll}
        onClose={() => setCancelAll(false)}
        title="Cancel every running execution?"
        confirmLabel="Cancel all"
        danger
        onConfirm={async () => {
          const r = await cancelAllExecutions(projectId, workflow.id);
          notifySuccess(`${r.cancelled} execution${r.cancelled === 1 ? '' : 's'} cancelled.`);
          refresh();
        }}
      >
        <Text size="sm">
          Every running or waiting execution of {workflow.name} stops where it is. Finished ones and mail already sent
          are not affected; new events still start executions while the workflow is enabled.
        </Text>
      </ConfirmDialog>
    </Stack>
  );
}
