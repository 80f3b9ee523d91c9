import { ActionIcon, Button, Group, NativeSelect, Stack, Text, Textarea, TextInput, Tooltip } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { convertValue, newRow, type DataRow, type RowErrors, type ValueType } from './dataRows';

// No "JSON" choice: the API stores objects and lists only from tracked events (an existing one is shown
// read-only and can be removed).
const TYPES: Array<{ value: Exclude<ValueType, 'json'>; label: string }> = [
  { value: 'string', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'True/false' },
];
const EVENT_TYPE = [{ value: 'json', label: 'From events' }];

interface DataEditorProps {
  rows: DataRow[];
  onChange: (rows: DataRow[]) => void;
  /** Problems by row id (from `dataFromRows`), shown at the inputs. */
  errors?: Record<string, RowErrors>;
}

/**
 * A contact's custom data as editable rows: key, type (text, number, true/false) and value, with add
 * and remove; an object or list (stored from tracked events) is shown read-only. Controlled: the parent keeps the rows and turns them into a request body with
 * `dataFromRows`.
 */
export function DataEditor({ rows, onChange, errors = {} }: DataEditorProps) {
  const update = (rowId: string, patch: Partial<DataRow>) =>
    onChange(rows.map((r) => (r.rowId === rowId ? { ...r, ...patch } : r)));
  return (
    <Stack gap="xs" data-testid="data-editor">
      {rows.length === 0 && (
        <Text size="sm" c="dimmed">
          No custom data. Add a field such as plan, firstName or signupSource.
        </Text>
      )}
      {rows.map((row, i) => {
        const name = row.key.trim() || `field ${i + 1}`;
        const err = errors[row.rowId] ?? {};
        // Wraps on a phone: the value then takes a line of its own instead of being squeezed to nothing.
        return (
          <Group key={row.rowId} gap="xs" align="flex-start" wrap="wrap" data-field={row.key}>
            <TextInput
              aria-label={`Key of ${name}`}
              placeholder="key"
              value={row.key}
              error={err.key}
              readOnly={row.type === 'json'}
              onChange={(e) => update(row.rowId, { key: e.currentTarget.value })}
              style={{ flex: '1 1 140px', maxWidth: 220 }}
            />
            <NativeSelect
              aria-label={`Type of ${name}`}
              data={row.type === 'json' ? EVENT_TYPE : TYPES}
              disabled={row.type === 'json'}
              value={row.type}
              onChange={(e) => {
                const type = e.currentTarget.value as Exclude<ValueType, 'json'>;
                update(row.rowId, { type, value: convertValue(row.value, type) });
              }}
              w={130}
            />
            <div style={{ flex: '1 1 160px', minWidth: 160 }}>
              {row.type === 'boolean' ? (
                <NativeSelect
                  aria-label={`Value of ${name}`}
                  data={[
                    { value: 'true', label: 'true' },
                    { value: 'false', label: 'false' },
                  ]}
                  value={row.value}
                  onChange={(e) => update(row.rowId, { value: e.currentTarget.value })}
                />
              ) : row.type === 'json' ? (
                <Textarea
                  aria-label={`Value of ${name}`}
                  value={row.value}
                  error={err.value}
                  readOnly
                  description="Set by tracked events; it can be removed here, not edited"
                  autosize
                  minRows={1}
                  maxRows={8}
                  styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
                />
              ) : (
                <TextInput
                  aria-label={`Value of ${name}`}
                  value={row.value}
                  error={err.value}
                  inputMode={row.type === 'number' ? 'decimal' : undefined}
                  onChange={(e) => update(row.rowId, { value: e.currentTarget.value })}
                />
              )}
            </div>
            <Tooltip label="Remove field">
              <ActionIcon
                variant="subtle"
                color="red"
                size="lg"
                aria-label={`Remove ${name}`}
                onClick={() => onChange(rows.filter((r) => r.rowId !== row.rowId))}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        );
      })}
      <Group>
        <Button
          variant="default"
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() => onChange([...rows, newRow()])}
        >
          Add field
        </Button>
      </Group>
    </Stack>
  );
}
