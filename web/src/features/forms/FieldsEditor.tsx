import {
  ActionIcon,
  Button,
  Checkbox,
  Group,
  NativeSelect,
  Paper,
  Stack,
  TagsInput,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import type { FormField, FormFieldType } from './api';

/** A field as the builder edits it; `keyEdited` stops the key from following the label. */
export interface FieldDraft extends Omit<FormField, 'options'> {
  uid: string;
  options: string[];
  keyEdited: boolean;
}

let next = 0;
const uid = () => `field-${++next}`;

/** The data key a label suggests: `First name` → `firstName` (letters and digits, starting with a letter). */
export function keyFrom(label: string): string {
  const words = label
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9 ]+/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  const key = words
    .map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()))
    .join('');
  return (/^[A-Za-z]/.test(key) ? key : `field${key}`).slice(0, 64);
}

/** The builder's drafts of saved `fields`. */
export const draftsOf = (fields: FormField[]): FieldDraft[] =>
  fields.map((f) => ({ ...f, options: f.options ?? [], uid: uid(), keyEdited: true }));

/** The fields a form saves from the builder's drafts. */
export const fieldsOf = (drafts: FieldDraft[]): FormField[] =>
  drafts.map((d) => ({
    key: d.key.trim(),
    label: d.label.trim(),
    type: d.type,
    required: d.type === 'email' ? true : d.required,
    ...(d.type === 'select' ? { options: d.options } : {}),
  }));

const TYPES: Array<{ value: FormFieldType; label: string }> = [
  { value: 'text', label: 'Text' },
  { value: 'select', label: 'Choice list' },
  { value: 'checkbox', label: 'Checkbox' },
];

/**
 * The form builder's field list: each field's label, key (the contact data it fills), type, whether
 * it is required and a choice list's options; fields added, removed and moved up or down. The email
 * field stays (every form has it) with its key and type. `errors` are the server's, by path
 * (`fields.2.key`).
 */
export function FieldsEditor({
  fields,
  onChange,
  errors,
}: {
  fields: FieldDraft[];
  onChange: (fields: FieldDraft[]) => void;
  errors: Record<string, string>;
}) {
  const set = (i: number, patch: Partial<FieldDraft>) =>
    onChange(fields.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  const move = (i: number, by: number) => {
    const out = [...fields];
    [out[i], out[i + by]] = [out[i + by], out[i]];
    onChange(out);
  };
  const add = () =>
    onChange([
      ...fields,
      { uid: uid(), key: '', label: '', type: 'text', required: false, options: [], keyEdited: false },
    ]);
  return (
    <Stack gap="sm">
      {fields.map((f, i) => {
        const email = f.type === 'email';
        const name = f.label.trim() || `field ${i + 1}`;
        const err = (part: string) => errors[`fields.${i}.${part}`];
        return (
          <Paper key={f.uid} p="sm" withBorder data-testid={`field-${i}`}>
            <Stack gap="xs">
              <Group align="flex-start" gap="sm" wrap="wrap">
                <TextInput
                  label="Label"
                  description="What the visitor reads"
                  required
                  value={f.label}
                  error={err('label')}
                  style={{ flex: '2 1 180px' }}
                  maxLength={200}
                  onChange={(e) => {
                    const label = e.currentTarget.value;
                    set(i, email || f.keyEdited ? { label } : { label, key: keyFrom(label) });
                  }}
                />
                <TextInput
                  label="Key"
                  description="The contact field it fills"
                  value={f.key}
                  readOnly={email}
                  error={err('key')}
                  style={{ flex: '1 1 140px' }}
                  maxLength={64}
                  onChange={(e) => set(i, { key: e.currentTarget.value, keyEdited: true })}
                />
                <NativeSelect
                  label="Type"
                  value={f.type}
                  disabled={email}
                  data={email ? [{ value: 'email', label: 'Email' }] : TYPES}
                  style={{ flex: '1 1 130px' }}
                  onChange={(e) => set(i, { type: e.currentTarget.value as FormFieldType })}
                />
              </Group>
              {f.type === 'select' && (
                <TagsInput
                  label="Options"
                  description="Type an option and press Enter"
                  value={f.options}
                  error={err('options')}
                  onChange={(options) => set(i, { options })}
                />
              )}
              <Group justify="space-between" gap="sm">
                <Checkbox
                  label={f.type === 'checkbox' ? 'Must be ticked' : 'Required'}
                  checked={email || f.required}
                  disabled={email}
                  onChange={(e) => set(i, { required: e.currentTarget.checked })}
                />
                <Group gap={4}>
                  <Tooltip label="Move up">
                    <ActionIcon
                      variant="subtle"
                      aria-label={`Move ${name} up`}
                      disabled={i === 0}
                      onClick={() => move(i, -1)}
                    >
                      <IconArrowUp size={16} />
                    </ActionIcon>
                  </Tooltip>
                  <Tooltip label="Move down">
                    <ActionIcon
                      variant="subtle"
                      aria-label={`Move ${name} down`}
                      disabled={i === fields.length - 1}
                      onClick={() => move(i, 1)}
                    >
                      <IconArrowDown size={16} />
                    </ActionIcon>
                  </Tooltip>
                  {!email && (
                    <Tooltip label="Remove">
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`Remove ${name}`}
                        onClick={() => onChange(fields.filter((_, j) => j !== i))}
                      >
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Tooltip>
                  )}
                </Group>
              </Group>
            </Stack>
          </Paper>
        );
      })}
      {errors.fields && (
        <Text size="sm" c="red">
          {errors.fields}
        </Text>
      )}
      <Group>
        <Button variant="default" leftSection={<IconPlus size={16} />} onClick={add}>
          Add field
        </Button>
      </Group>
    </Stack>
  );
}
