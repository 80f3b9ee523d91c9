import { Alert, Button, FileInput, Group, Modal, NativeSelect, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconAlertTriangle, IconFileTypeCsv } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { proposeMapping, type ColumnTarget } from '../../api/rules';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ImportReport } from '../../components/ImportReport';
import { JobProgress } from '../../components/JobProgress';
import { useTopics, type Topic } from '../topics/api';
import { contactKeys, queueImport, useContactJob, type ContactJob } from './api';

/** The largest file the server takes. */
const MAX_BYTES = 5 * 1024 * 1024;
const PREVIEW_ROWS = 5;

interface Preview {
  header: string[];
  rows: string[][];
}

/**
 * The first rows of a CSV file, parsed in the browser (papaparse, loaded only here; same delimiter
 * guess as the server: `,` or `;`). Reads only the file's first 64 kB.
 */
async function previewOf(file: File): Promise<Preview> {
  const { default: Papa } = await import('papaparse');
  const text = await file.slice(0, 64 * 1024).text();
  const parsed = Papa.parse<string[]>(text, {
    preview: PREVIEW_ROWS + 1,
    delimitersToGuess: [',', ';'],
    skipEmptyLines: true,
  });
  const [header = [], ...rows] = parsed.data;
  return { header, rows };
}

/**
 * What a column can become, in words: the project's topics too, as a column of JSON choices for any
 * topic (`topics`) or a yes/no column for one topic (`topic:<topicId>`).
 */
function targetOptions(header: string, topics: Topic[]) {
  const name = header.trim();
  return [
    { value: 'email', label: 'Email address' },
    { value: 'subscribed', label: 'Subscribed (true/false)' },
    ...(name ? [{ value: `data:${name}`, label: `Data field “${name}”` }] : []),
    ...(topics.length ? [{ value: 'topics', label: 'Topics (JSON like {"News": true})' }] : []),
    ...topics.map((t) => ({ value: `topic:${t.id}`, label: `Topic “${t.name}” (yes/no)` })),
    { value: 'skip', label: 'Leave out' },
  ];
}

/**
 * Where each column of the file goes: the proposal of the server's rule (an `E-mail` or `Email
 * Address` column is the email…), each changeable. The import sends it as the `mapping` field.
 */
function MappingTable({
  preview,
  targets,
  topics,
  onChange,
}: {
  preview: Preview;
  targets: ColumnTarget[];
  topics: Topic[];
  onChange: (i: number, t: ColumnTarget) => void;
}) {
  return (
    <Table withTableBorder fz="sm" data-testid="import-mapping">
      <caption style={{ captionSide: 'top', textAlign: 'left', paddingBottom: 4 }}>
        <Text size="sm" fw={500} span>
          Columns
        </Text>
      </caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">Column in the file</Table.Th>
          <Table.Th scope="col">First value</Table.Th>
          <Table.Th scope="col">Imported as</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {preview.header.map((h, i) => (
          <Table.Tr key={i} data-column={h}>
            <Table.Td style={{ wordBreak: 'break-word' }}>{h || <i>(no name)</i>}</Table.Td>
            <Table.Td style={{ wordBreak: 'break-word' }}>{preview.rows[0]?.[i] ?? ''}</Table.Td>
            <Table.Td>
              <NativeSelect
                aria-label={`Import the column ${h || i + 1} as`}
                size="xs"
                data={targetOptions(h, topics)}
                value={targets[i]}
                onChange={(e) => onChange(i, e.currentTarget.value as ColumnTarget)}
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function PreviewTable({ preview }: { preview: Preview }) {
  return (
    <ScrollArea type="auto" offsetScrollbars>
      <Table withTableBorder withColumnBorders fz="xs" data-testid="import-preview">
        <caption style={{ captionSide: 'top', textAlign: 'left', paddingBottom: 4 }}>
          <Text size="xs" c="dimmed" span>
            The first {preview.rows.length} rows as Pigeon will read them
          </Text>
        </caption>
        <Table.Thead>
          <Table.Tr>
            {preview.header.map((h, i) => (
              <Table.Th key={i} scope="col">
                {h}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {preview.rows.map((r, i) => (
            <Table.Tr key={i}>
              {preview.header.map((_, j) => (
                <Table.Td key={j}>{r[j] ?? ''}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}

/** Counts and row errors of a finished import. */
function ImportResult({ job }: { job: ContactJob }) {
  const r = job.result;
  if (!r) return null;
  const stats: Array<[string, number]> = [
    ['Created', r.created],
    ['Updated', r.updated],
    ['Skipped (empty)', r.skipped],
    ['Failed', r.failed],
  ];
  return (
    <ImportReport
      testId="import-result"
      stats={stats}
      errors={r.errors}
      failed={r.failed}
      errorsTitle="Rows not imported"
      retryNote="Fix these rows and import the file again: existing contacts are updated, not duplicated."
    />
  );
}

/**
 * "Import CSV": pick a file, see its first rows, upload it (`POST /contacts/import`), follow the job
 * (`GET /contacts/import/:jobId`) to 100 %, then the counts and the rows that failed, with their
 * numbers. The contact list refreshes when the import ends.
 */
export function ImportModal({
  projectId,
  opened,
  onClose,
}: {
  projectId: string;
  opened: boolean;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [targets, setTargets] = useState<ColumnTarget[]>([]);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const upload = useMutation({
    mutationFn: (f: File) =>
      queueImport(projectId, f, Object.fromEntries(preview!.header.map((h, i) => [h.trim(), targets[i]]))),
    onSuccess: (r) => setJobId(r.jobId),
  });
  const job = useContactJob(projectId, 'import', jobId);
  // Without topics (or while they load) the columns offer what they always did.
  const topics = useTopics(projectId).data ?? [];
  const finished = job.data?.state === 'completed' || job.data?.state === 'failed';

  useEffect(() => {
    if (job.data?.state === 'completed') void qc.invalidateQueries({ queryKey: contactKeys.all(projectId) });
  }, [job.data?.state, projectId, qc]);

  const pick = (f: File | null) => {
    setFile(f);
    setPreview(null);
    setPreviewError(null);
    upload.reset();
    if (!f) return;
    if (f.size > MAX_BYTES) {
      setPreviewError('The file is larger than 5 MB: split it into parts of at most 5 MB.');
      return;
    }
    previewOf(f).then(
      (p) => {
        setPreview(p);
        setTargets(proposeMapping(p.header));
      },
      (e: unknown) => setPreviewError(`The file could not be read: ${(e as Error).message}`),
    );
  };
  const emailColumns = targets.filter((t) => t === 'email').length;
  const setTarget = (i: number, t: ColumnTarget) =>
    setTargets((all) =>
      // One column is the email and one the subscription: choosing it for a column frees the other.
      all.map((old, j) => (j === i ? t : (t === 'email' || t === 'subscribed') && old === t ? 'skip' : old)),
    );
  const close = () => {
    setFile(null);
    setPreview(null);
    setPreviewError(null);
    setJobId(null);
    upload.reset();
    onClose();
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={<Text fw={600}>Import contacts from a CSV file</Text>}
      size="xl"
      centered
    >
      <Stack gap="md">
        {!jobId && (
          <>
            <Text size="sm" c="dimmed">
              The first row names the columns. Pick which one holds the <b>email address</b> (required) and, if any,
              whether a contact is <b>subscribed</b> (true/false); the other columns become data fields. A column can
              also join or leave a <b>topic</b> (yes/no), or hold topic choices as JSON. Up to 5 MB; comma or semicolon
              separated.
            </Text>
            <FileInput
              label="CSV file"
              placeholder="Choose a .csv file"
              accept=".csv,text/csv"
              leftSection={<IconFileTypeCsv size={16} />}
              value={file}
              onChange={pick}
              clearable
              clearButtonProps={{ 'aria-label': 'Remove the chosen file' }}
            />
            {previewError && (
              <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
                {previewError}
              </Alert>
            )}
            {preview && <MappingTable preview={preview} targets={targets} topics={topics} onChange={setTarget} />}
            {preview && emailColumns === 0 && (
              <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
                No column is imported as the email address: choose the column that holds the addresses.
              </Alert>
            )}
            {preview && <PreviewTable preview={preview} />}
            {upload.isError && <ErrorAlert error={upload.error} />}
          </>
        )}
        {jobId && job.isError && <ErrorAlert error={job.error} onRetry={() => void job.refetch()} />}
        {jobId && (
          <JobProgress
            label={file ? `Importing ${file.name}` : 'Importing'}
            job={job.data ?? { state: 'waiting', progress: 0 }}
          />
        )}
        {job.data?.state === 'completed' && <ImportResult job={job.data} />}
        <Group justify="flex-end" gap="sm">
          {!jobId && (
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
          )}
          {!jobId && (
            <Button
              disabled={!file || !preview || emailColumns !== 1}
              loading={upload.isPending}
              onClick={() => file && upload.mutate(file)}
            >
              Import
            </Button>
          )}
          {jobId && (
            <Button variant={finished ? 'filled' : 'default'} onClick={close}>
              {finished ? 'Done' : 'Close (the import goes on)'}
            </Button>
          )}
        </Group>
      </Stack>
    </Modal>
  );
}
