import { Button, Checkbox, Group, NumberInput, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { projectKeys } from '../projects/api';
import { needsRole } from '../projects/permissions';
import { useProject } from '../projects/ProjectContext';
import { saveRetention, type Retention } from './api';

const FIELDS = [
  { key: 'eventsDays', label: 'Events', what: 'Events older than this are deleted.' },
  {
    key: 'emailContentsDays',
    label: 'Email contents',
    what: 'Subjects, bodies and attachments of older emails are blanked; the emails still count in reports.',
  },
  { key: 'emailsDays', label: 'Emails', what: 'Older emails are deleted with their clicks.' },
] as const;
type Key = (typeof FIELDS)[number]['key'];

/** One period: a number of days, or "keep forever" (null). */
function Period({
  label,
  what,
  value,
  onChange,
  disabled,
}: {
  label: string;
  what: string;
  value: number | null;
  onChange: (v: number | null) => void;
  disabled: boolean;
}) {
  const [last, setLast] = useState(value ?? 365);
  const forever = value === null;
  return (
    <Stack gap={6}>
      <NumberInput
        label={`${label}: days to keep`}
        description={what}
        min={1}
        max={3650}
        allowDecimal={false}
        allowNegative={false}
        value={forever ? '' : value}
        placeholder="Kept forever"
        disabled={disabled || forever}
        onChange={(v) => {
          const n = typeof v === 'number' ? v : Number.parseInt(v, 10);
          if (Number.isFinite(n)) {
            setLast(n);
            onChange(n);
          }
        }}
      />
      <Checkbox
        label="Keep forever"
        checked={forever}
        disabled={disabled}
        onChange={(e) => onChange(e.currentTarget.checked ? null : last)}
      />
    </Stack>
  );
}

/** `/p/:projectId/settings/retention`: how long events, email contents and emails are kept (OWNER, ADMIN). */
export function RetentionSettings() {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const saved: Retention = project.retention ?? { eventsDays: null, emailContentsDays: null, emailsDays: null };
  const [values, setValues] = useState<Retention>(saved);
  const dirty = FIELDS.some((f) => values[f.key] !== saved[f.key]);
  const invalid = FIELDS.some((f) => {
    const v = values[f.key];
    return v !== null && (v < 1 || v > 3650);
  });
  const save = useMutation({
    mutationFn: () => saveRetention(project.id, values),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: projectKeys.all });
      notifySuccess('Data retention saved. It applies from tonight.');
    },
  });
  const set = (k: Key) => (v: number | null) => setValues((old) => ({ ...old, [k]: v }));
  return (
    <Paper p="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!invalid) save.mutate();
        }}
        noValidate
      >
        <Stack gap="md">
          <Stack gap={2}>
            <Title order={2} size="h5">
              Data retention
            </Title>
            <Text size="sm" c="dimmed">
              Older data is removed every night, a little at a time. Between 1 and 3,650 days, or keep it forever.
            </Text>
          </Stack>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            {FIELDS.map((f) => (
              <Period
                key={f.key}
                label={f.label}
                what={f.what}
                value={values[f.key]}
                onChange={set(f.key)}
                disabled={!can.editProject}
              />
            ))}
          </SimpleGrid>
          {invalid && (
            <Text size="sm" c="red">
              Each period is between 1 and 3,650 days.
            </Text>
          )}
          {save.isError && <ErrorAlert error={save.error} title="The retention could not be saved" />}
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              {can.editProject ? '' : `${needsRole('owners and admins')}.`}
            </Text>
            <Button type="submit" loading={save.isPending} disabled={!can.editProject || !dirty || invalid}>
              Save retention
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
