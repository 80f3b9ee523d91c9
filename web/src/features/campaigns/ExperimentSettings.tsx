import { Alert, Group, NativeSelect, NumberInput, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { ExperimentDraft, MetricKind } from './experiment';
import type { WaitUnit } from './experimentWords';
import { SplitBar } from './SplitBar';
import { VariantsEditor, type CampaignDefaults } from './VariantsEditor';

/** A NumberInput's value as a number (NaN while empty: the rules then say what is missing). */
const num = (v: number | string) => (typeof v === 'number' ? v : v.trim() === '' ? NaN : Number(v));
const shown = (n: number) => (Number.isNaN(n) ? '' : n);
// Descriptions under the inputs: of different lengths above them, they would put the inputs out of line.
const BELOW: Array<'label' | 'input' | 'description' | 'error'> = ['label', 'input', 'description', 'error'];

/** What the A/B part of the composer is given (ExperimentFields passes it on). */
export interface ExperimentFieldsProps {
  value: ExperimentDraft;
  onChange: (d: ExperimentDraft, field: string) => void;
  defaults: CampaignDefaults;
  /** Eligible contacts if sent now; null while unknown. */
  count: number | null;
  err: (field: string) => string | undefined;
}

/**
 * The A/B test of the composer once switched on: the variants side by side, the settings (test share,
 * holdout, metric with its event name, the wait in minutes, hours or days) and the split of the audience
 * drawn as a bar against the live count (`count`, null while unknown). `err(path)` gives the message of
 * an API field path; `onChange` names the path that changed, so its old server error is dropped.
 */
export function ExperimentSettings({ value: d, onChange, defaults, count, err }: ExperimentFieldsProps) {
  const set = (patch: Partial<ExperimentDraft>, field: string) => onChange({ ...d, ...patch }, field);
  const pure = d.testPercent === 100;
  const whole = err('variants') ?? err('experiment');
  return (
    <Stack gap="sm">
      {whole && (
        <Alert color="red" variant="light" role="alert">
          {whole}
        </Alert>
      )}
      <VariantsEditor
        variants={d.variants}
        defaults={defaults}
        err={err}
        onChange={(variants, field) => set({ variants }, field)}
      />
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
        <NumberInput
          label="Test share (%)"
          description="Split evenly between the variants; 100 % is a pure split, no winner"
          inputWrapperOrder={BELOW}
          min={1}
          max={100}
          allowDecimal={false}
          value={shown(d.testPercent)}
          onChange={(v) => set({ testPercent: num(v) }, 'experiment.testPercent')}
          error={err('experiment.testPercent')}
        />
        <NumberInput
          label="Holdout (%)"
          description="Gets nothing: shows what the mail adds"
          inputWrapperOrder={BELOW}
          min={0}
          max={50}
          allowDecimal={false}
          value={shown(d.holdoutPercent)}
          onChange={(v) => set({ holdoutPercent: num(v) }, 'experiment.holdoutPercent')}
          error={err('experiment.holdoutPercent')}
        />
        <Stack gap={4}>
          <NativeSelect
            label="The winner has the most"
            description="Machine opens and clicks are left out"
            inputWrapperOrder={BELOW}
            value={d.metric}
            onChange={(e) => set({ metric: e.currentTarget.value as MetricKind }, 'experiment.metric')}
            data={[
              { value: 'open', label: 'Human opens' },
              { value: 'click', label: 'Human clicks' },
              { value: 'event', label: 'Conversions (an event)' },
            ]}
            error={d.metric === 'event' ? undefined : err('experiment.metric')}
          />
          {d.metric === 'event' && (
            <TextInput
              label="Event name"
              placeholder="signup"
              value={d.eventName}
              onChange={(e) => set({ eventName: e.currentTarget.value }, 'experiment.metric')}
              error={err('experiment.metric')}
            />
          )}
        </Stack>
        <Stack gap={4}>
          <Group gap="xs" align="flex-start" wrap="nowrap">
            <NumberInput
              label="Wait"
              min={1}
              allowDecimal={false}
              disabled={pure}
              value={shown(d.wait)}
              onChange={(v) => set({ wait: num(v) }, 'experiment.waitMinutes')}
              error={err('experiment.waitMinutes')}
              style={{ flex: 1 }}
            />
            <NativeSelect
              label="Unit"
              disabled={pure}
              value={d.waitUnit}
              onChange={(e) => set({ waitUnit: e.currentTarget.value as WaitUnit }, 'experiment.waitMinutes')}
              data={[
                { value: 'minutes', label: 'minutes' },
                { value: 'hours', label: 'hours' },
                { value: 'days', label: 'days' },
              ]}
              w={110}
            />
          </Group>
          <Text size="xs" c="dimmed">
            {pure ? 'A pure split has no winner to wait for.' : 'After the wait, the winner goes to the rest.'}
          </Text>
        </Stack>
      </SimpleGrid>
      <SplitBar
        keys={d.variants.map((v) => v.key)}
        testPercent={d.testPercent}
        holdoutPercent={d.holdoutPercent}
        count={count}
      />
      <Text size="xs" c="dimmed">
        The groups are drawn at random when the send starts, in an order that is recorded, so a contact is in one group
        only.
      </Text>
    </Stack>
  );
}
