import { Select, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { conditionStepOperators, fieldLabel, operatorChoices, valueTypeOfField } from '../../lib/operators';
import type { WorkflowFields } from './api';
import { NO_VALUE, type Draft, type DraftErrors } from './stepDraft';

/** The field picker's entry for a field the inventory does not list yet (typed by hand). */
const OTHER = '__other__';
const SOURCES: Record<string, string> = { contact: 'Contact', event: 'Trigger event data', context: 'Context' };

interface Props {
  fields?: WorkflowFields;
  draft: Draft;
  set: (patch: Partial<Draft>) => void;
  errors: DraftErrors;
}

/**
 * A CONDITION step's field, operator and value. Fields are offered by their names ("Created at",
 * "plan"), grouped by where they are read; "Other field…" takes a key no contact or event has yet.
 * Operators are those that fit the field's type (src/segments/operators.ts), in words; picking a field
 * of another type resets an operator that no longer fits.
 */
export function ConditionStepFields({ fields, draft, set, errors }: Props) {
  const list = fields?.fields ?? [];
  const known = (f: string) => list.some((x) => x.field === f);
  // A field the inventory does not list (or not yet: it loads) shows as typed; once "Other field…" is
  // picked the box stays while typing, even when the key becomes a listed field on the way.
  const [picked, setTyped] = useState(false);
  const typed = picked || (draft.field !== '' && !known(draft.field));
  const typeOf = (f: string) => valueTypeOfField(f, list.find((x) => x.field === f)?.type);
  const type = typeOf(draft.field);
  const ops = conditionStepOperators(draft.field, type);
  const groups = Object.entries(SOURCES).map(([source, group]) => ({
    group,
    items: list.filter((f) => f.source === source).map((f) => ({ value: f.field, label: fieldLabel(f.field) })),
  }));
  const data = [
    ...groups.filter((g) => g.items.length > 0),
    { group: 'Other', items: [{ value: OTHER, label: 'Other field…' }] },
  ];
  const pickField = (field: string, keepValue = false) => {
    const next = conditionStepOperators(field, typeOf(field));
    const operator = next.includes(draft.operator as never) ? draft.operator : (next[0] ?? 'equals');
    set({ field, operator, ...(keepValue || typeOf(field) === type ? {} : { value: '' }) });
  };
  return (
    <Stack gap="sm">
      <Select
        label="Field"
        placeholder="Pick a field"
        data={data}
        value={typed ? OTHER : draft.field || null}
        onChange={(v) => {
          setTyped(v === OTHER);
          pickField(v === OTHER || !v ? '' : v);
        }}
        searchable
        allowDeselect={false}
        error={typed ? undefined : errors.field}
      />
      {typed && (
        <TextInput
          label="Field key"
          description="data.<key> of the contact, event.data.<key> of the trigger event, or context.<key>"
          placeholder="data.plan"
          value={draft.field}
          onChange={(e) => pickField(e.currentTarget.value, true)}
          error={errors.field}
        />
      )}
      <Select
        label="Operator"
        data={operatorChoices(ops, type, draft.operator)}
        value={draft.operator}
        onChange={(v) => set({ operator: v ?? 'equals' })}
        allowDeselect={false}
        error={errors.operator}
      />
      {!NO_VALUE.has(draft.operator) && (
        <TextInput
          label="Value"
          description={type === 'text' ? 'Compared as text' : 'Numbers and true/false are compared as such'}
          value={draft.value}
          onChange={(e) => set({ value: e.currentTarget.value })}
          error={errors.value}
        />
      )}
    </Stack>
  );
}
