import { Group, Progress, Stack, Text } from '@mantine/core';

/** The status of a background job as the API reports it (imports, bulk contact jobs). */
export interface JobStatus {
  state: 'waiting' | 'active' | 'completed' | 'failed';
  /** 0..100 */
  progress: number;
  failedReason?: string | null;
}

/**
 * Progress of long work: an indeterminate striped bar while waiting, the percentage while active, a
 * full bar when done, and the reason when it failed. Poll the job (TanStack Query `refetchInterval`)
 * while `state` is `waiting` or `active`.
 */
export function JobProgress({ label, job }: { label: string; job: JobStatus }) {
  const done = job.state === 'completed';
  const failed = job.state === 'failed';
  const value = done ? 100 : job.state === 'waiting' ? 100 : job.progress;
  return (
    <Stack gap={6}>
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <Text size="sm" c={failed ? 'red' : 'dimmed'}>
          {failed ? 'Failed' : done ? 'Done' : job.state === 'waiting' ? 'Queued…' : `${Math.round(job.progress)} %`}
        </Text>
      </Group>
      <Progress
        value={value}
        color={failed ? 'red' : done ? 'teal' : undefined}
        striped={!done && !failed}
        animated={!done && !failed}
        aria-label={label}
      />
      {failed && job.failedReason && (
        <Text size="sm" c="red">
          {job.failedReason}
        </Text>
      )}
    </Stack>
  );
}
