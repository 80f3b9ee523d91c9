import {
  ActionIcon,
  Autocomplete,
  Button,
  Checkbox,
  Group,
  NumberInput,
  Radio,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTopics } from '../topics/api';
import { TopicSelect } from '../topics/TopicSelect';
import type { StepType } from './api';
import { useTemplateChoices, useWorkflowFields } from './api';
import { SplitStepFields, SwitchStepFields } from './BranchStepFields';
import { ConditionStepFields } from './ConditionStepFields';
import { TriggerFields } from './TriggerFields';
import { type Draft, type DraftErrors, type KV } from './stepDraft';

const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

const UNITS = [
  { value: 'minutes', label: 'minutes' },
  { value: 'hours', label: 'hours' },
  { value: 'days', label: 'days' },
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const SUBSCRIPTION = [
  { value: 'none', label: 'Leave as is' },
  { value: 'subscribe', label: 'Subscribe' },
  { value: 'unsubscribe', label: 'Unsubscribe' },
];

interface FieldsProps {
  projectId: string;
  type: StepType;
  draft: Draft;
  set: (patch: Partial<Draft>) => void;
  errors: DraftErrors;
}

/** Rows of key/value inputs with add and remove buttons (WEBHOOK headers, UPDATE_CONTACT updates). */
function KeyValueRows({
  label,
  rows,
  onChange,
  error,
  keyLabel,
  valueLabel,
  hint,
}: {
  label: string;
  rows: KV[];
  onChange: (rows: KV[]) => void;
  error?: string;
  keyLabel: string;
  valueLabel: string;
  hint: string;
}) {
  const setRow = (i: number, patch: Partial<KV>) => onChange(rows.map((r, k) => (k === i ? { ...r, ...patch } : r)));
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <Text size="xs" c="dimmed">
        {hint}
      </Text>
      {rows.map((r, i) => (
        <Group key={i} gap={6} wrap="nowrap" align="flex-start">
          <TextInput
            aria-label={`${keyLabel} ${i + 1}`}
            placeholder={keyLabel}
            value={r.key}
            onChange={(e) => setRow(i, { key: e.currentTarget.value })}
            style={{ flex: 1 }}
          />
          <TextInput
            aria-label={`${valueLabel} ${i + 1}`}
            placeholder={valueLabel}
            value={r.value}
            onChange={(e) => setRow(i, { value: e.currentTarget.value })}
            style={{ flex: 1 }}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            size="lg"
            aria-label={`Remove ${keyLabel.toLowerCase()} ${i + 1}`}
            onClick={() => onChange(rows.filter((_, k) => k !== i))}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
      {error && (
        <Text size="xs" c="red.8" role="alert">
          {error}
        </Text>
      )}
      <Group>
        <Button
          size="compact-sm"
          variant="default"
          leftSection={<IconPlus size={14} />}
          onClick={() => onChange([...rows, { key: '', value: '' }])}
        >
          Add {keyLabel.toLowerCase()}
        </Button>
      </Group>
    </Stack>
  );
}

/**
 * The inputs of one step type's config: template picker (SEND_EMAIL, from `GET /templates`), duration
 * and unit (DELAY), event and timeout (WAIT_FOR_EVENT and the trigger), field, operator and value
 * (CONDITION, fields from `GET /workflows/fields`), branches with shares (SPLIT) or conditions
 * (SWITCH, BranchStepFields.tsx), URL, method and headers (WEBHOOK), updates and
 * subscription (UPDATE_CONTACT), reason (EXIT).
 */
export function StepConfigFields({ projectId, type, draft, set, errors }: FieldsProps) {
  const fields = useWorkflowFields(projectId);
  const templates = useTemplateChoices(projectId);
  const topics = useTopics(projectId);
  const events = fields.data?.events ?? [];
  switch (type) {
    case 'TRIGGER':
      return <TriggerFields projectId={projectId} events={events} draft={draft} set={set} errors={errors} />;
    case 'SEND_EMAIL': {
      const list = templates.data?.data ?? [];
      const template = list.find((t) => t.id === draft.templateId);
      const inherited = template?.topicId ? topics.data?.find((t) => t.id === template.topicId)?.name : undefined;
      return (
        <Stack gap="sm">
          <Select
            label="Template"
            placeholder={templates.isPending ? 'Loading templates…' : 'Pick a template'}
            data={list.map((t) => ({ value: t.id, label: `${t.name} — ${t.subject}` }))}
            value={draft.templateId || null}
            onChange={(v) => {
              const picked = list.find((t) => t.id === v);
              // A step topic means nothing for a template that is not marketing mail: it is dropped.
              set({ templateId: v ?? '', ...(picked && picked.type !== 'MARKETING' ? { topicId: '' } : {}) });
            }}
            searchable
            nothingFoundMessage="No template: create one under Templates first"
            error={errors.templateId ?? (templates.isError ? 'Could not load the templates' : undefined)}
          />
          {/* The step's mail is of its template's type; until one is picked, the topic can be chosen. */}
          <TopicSelect
            projectId={projectId}
            type={template?.type ?? 'MARKETING'}
            value={draft.topicId}
            onChange={(id) => set({ topicId: id })}
            error={errors.topicId}
            placeholder={inherited ? `The template's topic: ${inherited}` : 'No topic: everyone subscribed'}
          />
          <TextInput
            label="Send to another address"
            description="Leave empty to send to the contact in the workflow. An address here gets every mail of this step, e.g. your team's inbox for an alert."
            placeholder="The contact"
            type="email"
            value={draft.recipientEmail}
            onChange={(e) => set({ recipientEmail: e.currentTarget.value })}
            error={errors.recipientEmail}
          />
        </Stack>
      );
    }
    case 'DELAY':
      return (
        <Stack gap="sm">
          <Radio.Group
            label="Wait"
            value={draft.delayUntil}
            onChange={(v) => set({ delayUntil: v as Draft['delayUntil'] })}
          >
            <Group mt={6} gap="md">
              <Radio value="duration" label="For a duration" />
              <Radio value="window" label="Until the next window" />
            </Group>
          </Radio.Group>
          {draft.delayUntil === 'window' ? (
            <Stack gap="xs">
              <Text size="sm" c="dimmed">
                Goes on at the next opening of the window in the contact&apos;s time zone (the project&apos;s when
                unknown); at once when inside it.
              </Text>
              <Group grow align="flex-start">
                <TextInput
                  type="time"
                  label="From"
                  value={draft.windowFrom}
                  onChange={(e) => set({ windowFrom: e.currentTarget.value })}
                  error={errors.windowFrom}
                />
                <TextInput
                  type="time"
                  label="To"
                  value={draft.windowTo}
                  onChange={(e) => set({ windowTo: e.currentTarget.value })}
                  error={errors.windowTo}
                />
              </Group>
              <Checkbox.Group
                label="Days"
                value={draft.windowDays}
                onChange={(days) => set({ windowDays: WEEKDAYS.filter((x) => days.includes(x)) })}
                error={errors.windowDays}
              >
                <Group mt={6} gap="xs">
                  {WEEKDAYS.map((day) => (
                    <Checkbox key={day} value={day} label={day[0].toUpperCase() + day.slice(1)} />
                  ))}
                </Group>
              </Checkbox.Group>
            </Stack>
          ) : (
            <Group grow align="flex-start">
              <NumberInput
                label="Duration"
                min={1}
                value={draft.amount}
                onChange={(v) => set({ amount: v })}
                error={errors.amount}
              />
              <Select
                label="Unit"
                data={UNITS}
                value={draft.unit}
                onChange={(v) => set({ unit: (v ?? 'days') as Draft['unit'] })}
                allowDeselect={false}
              />
            </Group>
          )}
        </Stack>
      );
    case 'WAIT_FOR_EVENT':
      return (
        <Stack gap="sm">
          <Autocomplete
            label="Event name"
            description="Continues on the event branch when the contact triggers it"
            data={events}
            value={draft.eventName}
            onChange={(v) => set({ eventName: v })}
            error={errors.eventName}
          />
          <Group grow align="flex-start">
            <NumberInput
              label="Timeout"
              description="Empty: wait forever"
              min={1}
              value={draft.timeoutAmount}
              onChange={(v) => set({ timeoutAmount: v })}
              error={errors.timeoutAmount}
            />
            <Select
              label="Timeout unit"
              data={UNITS}
              value={draft.timeoutUnit}
              onChange={(v) => set({ timeoutUnit: (v ?? 'days') as Draft['unit'] })}
              allowDeselect={false}
            />
          </Group>
        </Stack>
      );
    case 'CONDITION':
      return <ConditionStepFields fields={fields.data} draft={draft} set={set} errors={errors} />;
    case 'SPLIT':
      return <SplitStepFields draft={draft} set={set} errors={errors} />;
    case 'SWITCH':
      return <SwitchStepFields fields={fields.data} draft={draft} set={set} errors={errors} />;
    case 'WEBHOOK':
      return (
        <Stack gap="sm">
          <TextInput
            label="URL"
            placeholder="https://example.com/hook"
            value={draft.url}
            onChange={(e) => set({ url: e.currentTarget.value })}
            error={errors.url}
          />
          <Select
            label="Method"
            data={METHODS}
            value={draft.method}
            onChange={(v) => set({ method: v ?? 'POST' })}
            allowDeselect={false}
          />
          <KeyValueRows
            label="Headers"
            hint="Sent with each call, e.g. Authorization."
            rows={draft.headers}
            onChange={(headers) => set({ headers })}
            error={errors.headers}
            keyLabel="Header"
            valueLabel="Header value"
          />
        </Stack>
      );
    case 'UPDATE_CONTACT':
      return (
        <Stack gap="sm">
          <KeyValueRows
            label="Data to set"
            hint="Keys of the contact's data; numbers and true/false are stored as such."
            rows={draft.updates}
            onChange={(updates) => set({ updates })}
            error={errors.updates}
            keyLabel="Key"
            valueLabel="Value"
          />
          <Select
            label="Subscription"
            data={SUBSCRIPTION}
            value={draft.subscriptionAction}
            onChange={(v) => set({ subscriptionAction: v ?? 'none' })}
            allowDeselect={false}
          />
        </Stack>
      );
    case 'EXIT':
      return (
        <TextInput
          label="Reason"
          description="Recorded on the execution"
          value={draft.reason}
          onChange={(e) => set({ reason: e.currentTarget.value })}
          error={errors.reason}
        />
      );
  }
}
