import { Button, Group, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import type { BillingConsumption, BillingLimits } from '../../api/types';
import { FormError, useApiForm } from '../../components/forms';
import { notifySuccess } from '../../components/notify';
import { QueryState } from '../../components/QueryState';
import { UsageBar } from '../../components/UsageBar';
import { formatDate } from '../../lib/format';
import { needsRole } from '../projects/permissions';
import { useProject } from '../projects/ProjectContext';
import { setBillingLimits, settingsKeys, useBillingConsumption, useBillingLimits } from './api';

const SOURCES = [
  { key: 'transactional', label: 'Transactional (/v1/send)' },
  { key: 'campaigns', label: 'Campaigns' },
  { key: 'workflows', label: 'Workflows' },
] as const;

// The server's rule for a cap: a whole number ≥ 0, or none. The form holds text, '' for "no cap".
const cap = z.string().trim().regex(/^\d*$/, 'A whole number of emails, or empty for no cap');
const schema = z.object({ transactional: cap, campaigns: cap, workflows: cap });
type FormValues = Record<keyof BillingLimits, string>;
const toCap = (v: string): number | null => (v.trim() === '' ? null : Number(v.trim()));

function LimitsForm({ limits }: { limits: BillingLimits }) {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const toForm = (l: BillingLimits): FormValues => ({
    transactional: l.transactional?.toString() ?? '',
    campaigns: l.campaigns?.toString() ?? '',
    workflows: l.workflows?.toString() ?? '',
  });
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: toForm(limits),
    schema,
    submit: (v) =>
      setBillingLimits(project.id, {
        transactional: toCap(v.transactional),
        campaigns: toCap(v.campaigns),
        workflows: toCap(v.workflows),
      }),
    onSuccess: (saved) => {
      qc.setQueryData(settingsKeys.limits(project.id), saved);
      form.resetDirty(toForm(saved));
      notifySuccess('Monthly limits saved.');
    },
  });
  return (
    <Paper p="lg">
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <Stack gap={2}>
            <Title order={2} size="h5">
              Monthly limits
            </Title>
            <Text size="sm" c="dimmed">
              Past a limit, sending from that source is refused (429) until the next month. Leave empty for no cap.
            </Text>
          </Stack>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            {SOURCES.map((s) => (
              <TextInput
                key={form.key(s.key)}
                label={s.label}
                placeholder="No cap"
                inputMode="numeric"
                disabled={!can.ownerOnly}
                {...form.getInputProps(s.key)}
              />
            ))}
          </SimpleGrid>
          <FormError error={formError} />
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              {can.ownerOnly ? '' : `${needsRole('owners')}.`}
            </Text>
            <Button type="submit" loading={mutation.isPending} disabled={!can.ownerOnly || !form.isDirty()}>
              Save limits
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

function Consumption({ used, limits }: { used: BillingConsumption; limits: BillingLimits }) {
  return (
    <Paper p="lg" data-testid="consumption">
      <Stack gap="md">
        <Stack gap={2}>
          <Title order={2} size="h5">
            This month
          </Title>
          <Text size="sm" c="dimmed">
            Emails created since {formatDate(used.periodStart)} (UTC), per source. Test sends are not counted.
          </Text>
        </Stack>
        {SOURCES.map((s) => (
          <UsageBar key={s.key} label={s.label} used={used[s.key]} limit={limits[s.key]} />
        ))}
      </Stack>
    </Paper>
  );
}

/** `/p/:projectId/settings/billing`: consumption as bars against the monthly caps, and the caps. */
export function BillingSettings() {
  const { project } = useProject();
  const limits = useBillingLimits(project.id);
  const used = useBillingConsumption(project.id);
  return (
    <QueryState query={limits}>
      {(l) => (
        <Stack gap="lg">
          <QueryState query={used}>{(u) => <Consumption used={u} limits={l} />}</QueryState>
          <LimitsForm limits={l} />
        </Stack>
      )}
    </QueryState>
  );
}
