import { ActionIcon, Group, NativeSelect, Skeleton, TextInput, type NumberInputProps } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { lazy, Suspense, useState } from 'react';

// Most filters compare text; the number input (a third of the condition builder's weight) loads when a
// filter asks for a number, so the campaign composer's first screen does not carry it.
const LazyNumberField = lazy(() => import('./NumberField').then((m) => ({ default: m.NumberField })));
function NumberInput(props: NumberInputProps) {
  return (
    <Suspense fallback={<Skeleton height={36} w={props.w} />}>
      <LazyNumberField {...props} />
    </Suspense>
  );
}
import {
  BUILT_IN_FIELD_LABELS,
  fieldLabel,
  operatorChoices,
  valueTypeOfField,
  type ValueType,
} from '../../lib/operators';
import type { FieldOptions } from './api';
import {
  EMAIL_ACTIVITIES,
  fieldKind,
  isValueless,
  isWindow,
  operatorsFor,
  UNITS,
  withField,
  withOperator,
  type ConditionFilter,
  type Operator,
} from './condition';

interface FilterRowProps {
  filter: ConditionFilter;
  onChange: (f: ConditionFilter) => void;
  onRemove: () => void;
  options: FieldOptions;
  /** Human name of the row for labels: "filter 2 of group 1". */
  name: string;
  /** The server's messages for this filter by part (`field`, `operator`, `value`, `unit`). */
  errors: Record<string, string>;
}

type SelectData = Array<{ group: string; items: Array<{ value: string; label: string }> }>;

/** The field picker's entry for a `data.<path>` the inventory does not list (typed by hand). */
const OTHER_DATA = '__other_data__';

/** The field picker's choices, grouped by kind; the current field stays offered even if unknown. */
function fieldChoices(o: FieldOptions, current: string, typed: boolean): SelectData {
  const groups: SelectData = [
    {
      group: 'Contact',
      items: Object.entries(BUILT_IN_FIELD_LABELS).map(([value, label]) => ({ value, label })),
    },
    {
      group: 'Data',
      items: [
        ...o.dataFields.map((f) => ({ value: f.field, label: fieldLabel(f.field) })),
        { value: OTHER_DATA, label: 'Other data field…' },
      ],
    },
    { group: 'Events', items: o.events.map((e) => ({ value: `event.${e}`, label: `Event: ${e}` })) },
    { group: 'Email activity', items: EMAIL_ACTIVITIES.map((a) => ({ value: `email.${a}`, label: `Email ${a}` })) },
    { group: 'Segments', items: o.segments.map((s) => ({ value: `segment.${s.id}`, label: `Segment: ${s.name}` })) },
  ];
  if (!typed && !groups.some((g) => g.items.some((i) => i.value === current)))
    groups.push({ group: 'Current', items: [{ value: current, label: fieldLabel(current) }] });
  return groups.filter((g) => g.items.length > 0);
}

/** The value type of `field` by the fields inventory (built-ins have their own). */
const typeOf = (field: string, o: FieldOptions): ValueType =>
  valueTypeOfField(field, o.dataFields.find((d) => d.field === field)?.type);

/** What input the value of `f` (a field of `type`) takes: a date, a number, a yes/no or text. */
function valueKind(f: ConditionFilter, type: ValueType): 'date' | 'number' | 'boolean' | 'text' {
  if (type === 'number' || type === 'date') return type;
  if (type === 'boolean' && (f.operator === 'equals' || f.operator === 'notEquals')) return 'boolean';
  return 'text';
}

/**
 * One filter of the condition builder: field, the operators that field accepts, and the value in the
 * input its type needs (amount and unit for time windows, none for "is set" / "happened"). A filter
 * the server refused is outlined and its messages sit at the wrong part.
 */
export function FilterRow({ filter: f, onChange, onRemove, options, name, errors }: FilterRowProps) {
  const op = f.operator as Operator;
  const invalid = Object.keys(errors).length > 0;
  const type = typeOf(f.field, options);
  const vk = valueKind(f, type);
  const value = f.value === undefined || f.value === null ? '' : String(f.value);
  // Sticky while typing: a path that becomes a listed field ("plan" on the way to "planet") keeps its box.
  const [typedPath, setTypedPath] = useState(
    () => fieldKind(f.field) === 'data' && !options.dataFields.some((d) => d.field === f.field),
  );
  let valueInput = null;
  if (isWindow(op)) {
    valueInput = (
      <>
        <NumberInput
          aria-label={`Amount of ${name}`}
          min={1}
          w={110}
          value={Number(f.value) || ''}
          error={errors.value}
          onChange={(v) => onChange({ ...f, value: v === '' ? undefined : Number(v) })}
        />
        <NativeSelect
          aria-label={`Unit of ${name}`}
          data={[...UNITS]}
          value={f.unit ?? 'days'}
          error={errors.unit}
          onChange={(e) => onChange({ ...f, unit: e.currentTarget.value as ConditionFilter['unit'] })}
        />
      </>
    );
  } else if (!isValueless(op)) {
    if (vk === 'boolean') {
      valueInput = (
        <NativeSelect
          aria-label={`Value of ${name}`}
          data={['true', 'false']}
          value={value || 'true'}
          error={errors.value}
          onChange={(e) => onChange({ ...f, value: e.currentTarget.value === 'true' })}
        />
      );
    } else if (vk === 'number') {
      valueInput = (
        <NumberInput
          aria-label={`Value of ${name}`}
          w={160}
          value={value === '' ? '' : Number(value)}
          error={errors.value}
          onChange={(v) => onChange({ ...f, value: v === '' ? '' : Number(v) })}
        />
      );
    } else {
      valueInput = (
        <TextInput
          aria-label={`Value of ${name}`}
          type={vk === 'date' ? 'date' : 'text'}
          w={vk === 'date' ? 170 : 200}
          placeholder={vk === 'date' ? undefined : 'value'}
          value={value}
          error={errors.value}
          onChange={(e) => onChange({ ...f, value: e.currentTarget.value })}
        />
      );
    }
  }
  return (
    <Group
      gap="xs"
      align="flex-start"
      wrap="wrap"
      data-filter={name}
      data-invalid={invalid || undefined}
      p={invalid ? 6 : 0}
      style={invalid ? { border: '1px solid var(--mantine-color-error)', borderRadius: 6 } : undefined}
    >
      <NativeSelect
        aria-label={`Field of ${name}`}
        data={fieldChoices(options, f.field, typedPath)}
        value={typedPath ? OTHER_DATA : f.field}
        error={typedPath ? undefined : errors.field}
        w={220}
        onChange={(e) => {
          const other = e.currentTarget.value === OTHER_DATA;
          setTypedPath(other);
          const field = other ? 'data.' : e.currentTarget.value;
          onChange(withField(f, field, typeOf(field, options), type));
        }}
      />
      {typedPath && (
        <TextInput
          aria-label={`Data path of ${name}`}
          placeholder="plan or address.city"
          w={180}
          value={f.field.slice(5)}
          error={errors.field}
          onChange={(e) => onChange({ ...f, field: `data.${e.currentTarget.value}` })}
        />
      )}
      <NativeSelect
        aria-label={`Operator of ${name}`}
        value={op}
        error={errors.operator}
        data={operatorChoices(operatorsFor(f.field, type), type, op)}
        onChange={(e) => onChange(withOperator(f, e.currentTarget.value as Operator, type))}
      />
      {valueInput}
      <ActionIcon variant="subtle" color="red" size="lg" aria-label={`Remove ${name}`} onClick={onRemove}>
        <IconTrash size={16} />
      </ActionIcon>
    </Group>
  );
}
