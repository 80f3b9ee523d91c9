import { Button, Group, Paper, Progress, Select, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { IconDownload, IconFileExport } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { EmptyState } from '../../components/EmptyState';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { formatDateTime } from '../../lib/format';
import { useProject } from '../projects/ProjectContext';
import { createExport, exportKeys, useExports, type DataExport, type ExportFormat, type ExportKind } from './api';

const KINDS: { value: ExportKind; label: string }[] = [
  { value: 'contacts', label: 'Contacts' },
  { value: 'events', label: 'Events' },
  { value: 'emails', label: 'Emails (without their content)' },
  { value: 'suppressions', label: 'Suppressions' },
  { value: 'consent', label: 'Consent log' },
];
const kindLabel = (k: ExportKind) => KINDS.find((x) => x.value === k)?.label.split(' (')[0] ?? k;
const count = (n: number) => n.toLocaleString('en');

/** The export's state as a sentence for people. */
export function stateSentence(e: DataExport): string {
  switch (e.state) {
    case 'queued':
      return 'Waiting to start; exports of this project run one at a time.';
    case 'running':
      return e.rowsTotal === null
        ? 'Counting the rows…'
        : `Writing ${count(e.rowsDone)} of ${count(e.rowsTotal)} rows…`;
    case 'done':
      return `Ready: ${count(e.rowsDone)} rows${e.expiresAt ? `, kept until ${formatDateTime(e.expiresAt)}` : ''}.`;
    case 'expired':
      return 'The file was deleted after seven days. Start a new export to get the data again.';
    case 'failed':
      return e.error ?? 'The export could not be written.';
  }
}

const TONES: Record<DataExport['state'], Tone> = {
  queued: 'neutral',
  running: 'warning',
  done: 'success',
  expired: 'neutral',
  failed: 'danger',
};
const STATE_LABEL: Record<DataExport['state'], string> = {
  queued: 'Queued',
  running: 'Running',
  done: 'Done',
  expired: 'Expired',
  failed: 'Failed',
};

function ExportRow({ e }: { e: DataExport }) {
  const pct = e.rowsTotal ? Math.min(100, (e.rowsDone / e.rowsTotal) * 100) : e.state === 'done' ? 100 : 0;
  const title = `${kindLabel(e.kind)} as ${e.format === 'csv' ? 'CSV' : 'JSON Lines'}`;
  return (
    <Paper p="md" data-testid="export-row">
      <Stack gap={8}>
        <Group justify="space-between" wrap="wrap">
          <Group gap="xs">
            <Text fw={600}>{title}</Text>
            <StatusBadge tone={TONES[e.state]}>{STATE_LABEL[e.state]}</StatusBadge>
          </Group>
          <Text size="sm" c="dimmed">
            Started {formatDateTime(e.createdAt)}
          </Text>
        </Group>
        {(e.state === 'queued' || e.state === 'running') && (
          <Progress value={e.state === 'queued' ? 100 : pct} striped animated aria-label={`Progress of ${title}`} />
        )}
        <Group justify="space-between" wrap="wrap">
          <Text size="sm" c={e.state === 'failed' ? 'red' : undefined}>
            {stateSentence(e)}
          </Text>
          {e.state === 'done' && e.url && (
            <Button component="a" href={e.url} size="xs" leftSection={<IconDownload size={14} />} download>
              Download
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}

function NewExport({ projectId }: { projectId: string }) {
  const qc = useQueryClient();
  const [kind, setKind] = useState<ExportKind>('contacts');
  const [format, setFormat] = useState<ExportFormat>('csv');
  const start = useMutation({
    mutationFn: () => createExport(projectId, { kind, format }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: exportKeys.list(projectId) });
      notifySuccess('The export has started. It appears below with its progress.');
    },
  });
  return (
    <Paper p="lg">
      <form
        onSubmit={(ev) => {
          ev.preventDefault();
          start.mutate();
        }}
      >
        <Stack gap="md">
          <Stack gap={2}>
            <Title order={2} size="h5">
              New export
            </Title>
            <Text size="sm" c="dimmed">
              The file is written in the background; its download link works for 24 hours at a time and the file is
              deleted after seven days.
            </Text>
          </Stack>
          <Group align="flex-end" wrap="wrap">
            <Select
              label="What to export"
              data={KINDS}
              value={kind}
              onChange={(v) => v && setKind(v as ExportKind)}
              allowDeselect={false}
              w={280}
            />
            <Stack gap={4}>
              <Text size="sm" fw={500} id="export-format-label">
                Format
              </Text>
              <SegmentedControl
                aria-labelledby="export-format-label"
                value={format}
                onChange={(v) => setFormat(v as ExportFormat)}
                data={[
                  { value: 'csv', label: 'CSV' },
                  { value: 'jsonl', label: 'JSON Lines' },
                ]}
              />
            </Stack>
            <Button type="submit" loading={start.isPending} leftSection={<IconFileExport size={16} />}>
              Start export
            </Button>
          </Group>
          {start.isError && <ErrorAlert error={start.error} title="The export could not be started" />}
        </Stack>
      </form>
    </Paper>
  );
}

/** `/p/:projectId/exports`: start an export of contacts, events, emails, suppressions or consent; follow and download them. */
export function ExportsPage() {
  const { project } = useProject();
  const list = useExports(project.id);
  return (
    <>
      <PageHeader
        title="Exports"
        description="Download the project's contacts, events, emails, suppressions or consent log as a file."
      />
      <Stack gap="lg">
        <NewExport projectId={project.id} />
        <QueryState
          query={list}
          isEmpty={(d) => d.data.length === 0}
          empty={
            <EmptyState
              icon={<IconFileExport size={28} />}
              title="No exports yet"
              description="Start one above; it shows up here with its progress and, when done, a download link."
            />
          }
        >
          {(d) => (
            <Stack gap="sm" aria-label="Exports">
              {d.data.map((e) => (
                <ExportRow key={e.id} e={e} />
              ))}
            </Stack>
          )}
        </QueryState>
      </Stack>
    </>
  );
}
