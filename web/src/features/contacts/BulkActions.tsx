import { Button, CloseButton, Group, Paper, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconBell, IconBellOff, IconTrash } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorAlert } from '../../components/ErrorAlert';
import { JobProgress } from '../../components/JobProgress';
import { notifySuccess } from '../../components/notify';
import { contactKeys, queueBulk, useContactJob, type BulkAction } from './api';

const LABEL: Record<BulkAction, string> = {
  subscribe: 'Subscribing',
  unsubscribe: 'Unsubscribing',
  delete: 'Deleting',
};
const DONE: Record<BulkAction, string> = { subscribe: 'subscribed', unsubscribe: 'unsubscribed', delete: 'deleted' };

const plural = (n: number) => `${n.toLocaleString()} contact${n === 1 ? '' : 's'}`;

interface BulkActionsProps {
  projectId: string;
  selected: string[];
  /** Called when a job was queued for the selection (the caller clears it). */
  onQueued: () => void;
}

/**
 * The bar over the contact list while contacts are selected: subscribe, unsubscribe or delete them
 * (`POST /contacts/bulk-*`, delete after confirmation), then the job's progress
 * (`GET /contacts/bulk/:jobId`) until it is done, when the list refreshes.
 */
export function BulkActions({ projectId, selected, onQueued }: BulkActionsProps) {
  const qc = useQueryClient();
  const [run, setRun] = useState<{ jobId: string; action: BulkAction; count: number } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const queue = useMutation({
    mutationFn: (action: BulkAction) =>
      queueBulk(projectId, action, selected).then((r) => ({ ...r, action, count: selected.length })),
    onSuccess: (r) => {
      setRun(r);
      onQueued();
    },
  });
  const job = useContactJob(projectId, 'bulk', run?.jobId ?? null);
  const state = job.data?.state;

  useEffect(() => {
    if (!run || (state !== 'completed' && state !== 'failed')) return;
    void qc.invalidateQueries({ queryKey: contactKeys.all(projectId) });
    if (state === 'completed') notifySuccess(`${plural(run.count)} ${DONE[run.action]}.`);
  }, [state, run, projectId, qc]);

  return (
    <Stack gap="sm">
      {selected.length > 0 && (
        <Paper p="sm" withBorder data-testid="bulk-bar">
          <Group justify="space-between" gap="sm">
            <Text size="sm" fw={500}>
              {plural(selected.length)} selected
            </Text>
            <Group gap="xs">
              <Button
                size="xs"
                variant="default"
                leftSection={<IconBell size={14} />}
                loading={queue.isPending && queue.variables === 'subscribe'}
                onClick={() => queue.mutate('subscribe')}
              >
                Subscribe
              </Button>
              <Button
                size="xs"
                variant="default"
                leftSection={<IconBellOff size={14} />}
                loading={queue.isPending && queue.variables === 'unsubscribe'}
                onClick={() => queue.mutate('unsubscribe')}
              >
                Unsubscribe
              </Button>
              <Button
                size="xs"
                variant="light"
                color="red"
                leftSection={<IconTrash size={14} />}
                onClick={() => setConfirmDelete(true)}
              >
                Delete
              </Button>
            </Group>
          </Group>
        </Paper>
      )}
      {queue.isError && !confirmDelete && <ErrorAlert error={queue.error} />}
      {run && (
        <Paper p="md" withBorder data-testid="bulk-job">
          <Group align="flex-start" wrap="nowrap" gap="sm">
            <Stack gap="xs" style={{ flex: 1 }}>
              {job.isError ? (
                <ErrorAlert error={job.error} onRetry={() => void job.refetch()} />
              ) : (
                <JobProgress
                  label={`${LABEL[run.action]} ${plural(run.count)}`}
                  job={job.data ?? { state: 'waiting', progress: 0 }}
                />
              )}
              {state === 'completed' && job.data?.result && job.data.result.errors.length > 0 && (
                <Text size="sm" c="red">
                  {job.data.result.errors.length} could not be changed: {job.data.result.errors[0].message}
                </Text>
              )}
            </Stack>
            {(state === 'completed' || state === 'failed' || job.isError) && (
              <CloseButton aria-label="Dismiss job progress" onClick={() => setRun(null)} />
            )}
          </Group>
        </Paper>
      )}
      <ConfirmDialog
        opened={confirmDelete}
        onClose={() => setConfirmDelete(false)}
        title={`Delete ${plural(selected.length)}?`}
        confirmLabel="Delete contacts"
        danger
        onConfirm={() => queue.mutateAsync('delete')}
      >
        <Text size="sm">
          The selected contacts are removed for good with their data, events, segment memberships and running workflows.
          Emails already sent stay in the activity feed. This cannot be undone.
        </Text>
      </ConfirmDialog>
    </Stack>
  );
}
