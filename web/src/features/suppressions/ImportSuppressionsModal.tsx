import { Alert, Button, FileInput, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconAlertTriangle, IconFileTypeCsv } from '@tabler/icons-react';
import { useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ImportReport } from '../../components/ImportReport';
import { importSuppressions, suppressionKeys, type ImportResult, type SuppressionReason } from './api';
import { PICKABLE, REASONS } from './reasons';

/** The largest file the server takes (src/suppressions/import.ts). */
const MAX_BYTES = 5 * 1024 * 1024;

function Result({ r }: { r: ImportResult }) {
  const stats: Array<[string, number]> = [
    ['Added', r.added],
    ['Already on the list', r.alreadySuppressed],
    ['Empty rows', r.skipped],
    ['Not added', r.failed],
  ];
  return (
    <ImportReport
      testId="suppression-import-result"
      stats={stats}
      errors={r.errors}
      failed={r.failed}
      errorsTitle="Rows not added"
      retryNote="Fix these rows and import the file again: addresses already on the list are left as they are."
    />
  );
}

/** "Import CSV": a file of addresses (`POST /suppressions/import`), then what was added and the rows that were not. */
export function ImportSuppressionsModal({
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
  const [reason, setReason] = useState<SuppressionReason>('unsubscribe');
  const upload = useMutation({
    mutationFn: (f: File) => importSuppressions(projectId, f, reason),
    onSuccess: () => void qc.invalidateQueries({ queryKey: suppressionKeys.all(projectId) }),
  });
  const tooBig = !!file && file.size > MAX_BYTES;
  const close = () => {
    setFile(null);
    upload.reset();
    onClose();
  };
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={<Text fw={600}>Import addresses from a CSV file</Text>}
      size="lg"
      centered
    >
      <Stack gap="md">
        {!upload.data && (
          <>
            <Text size="sm" c="dimmed">
              One address per row, in a column named email (E-mail or Email Address work too), or a file with just the
              addresses. A reason column (bounce, complaint, manual, unsubscribe) is used when present. Up to 5 MB.
            </Text>
            <FileInput
              label="CSV file"
              placeholder="Choose a .csv file"
              accept=".csv,text/csv,text/plain"
              leftSection={<IconFileTypeCsv size={16} />}
              value={file}
              onChange={(f) => {
                setFile(f);
                upload.reset();
              }}
              clearable
            />
            <Select
              label="Reason for rows without one"
              data={PICKABLE.map((r) => ({ value: r, label: REASONS[r].label }))}
              value={reason}
              onChange={(v) => v && setReason(v as SuppressionReason)}
              allowDeselect={false}
            />
            {tooBig && (
              <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
                The file is larger than 5 MB: split it into parts of at most 5 MB.
              </Alert>
            )}
            {upload.isError && <ErrorAlert error={upload.error} title="The file was not imported" />}
          </>
        )}
        {upload.data && <Result r={upload.data} />}
        <Group justify="flex-end" gap="sm">
          {upload.data ? (
            <Button onClick={close}>Done</Button>
          ) : (
            <>
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button disabled={!file || tooBig} loading={upload.isPending} onClick={() => file && upload.mutate(file)}>
                Import
              </Button>
            </>
          )}
        </Group>
      </Stack>
    </Modal>
  );
}
