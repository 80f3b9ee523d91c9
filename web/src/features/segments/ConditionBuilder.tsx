import { Button, Group, NativeSelect, Paper, Stack, Text } from '@mantine/core';
import { IconPlus, IconSitemap, IconTrash } from '@tabler/icons-react';
import type { FieldError } from '../../api/errors';
import type { FieldOptions } from './api';
import { errorsAt, MAX_DEPTH, newFilter, type ConditionGroup, type ConditionTree } from './condition';
import { FilterRow } from './FilterRow';

interface BuilderProps {
  value: ConditionTree;
  onChange: (t: ConditionTree) => void;
  options: FieldOptions;
  /** The server's field errors of the last count or save (paths start with `path`). */
  errors: FieldError[];
  /** Name of the tree in the server's error paths: `condition` (segments) or `audienceCondition`. */
  path: string;
}

/**
 * The visual editor of a condition tree: groups combined with AND or OR, each group's filters (ANDed)
 * and an optional nested condition, down to the server's depth limit. Every control is a native
 * select, input or button, so the builder works with the keyboard alone.
 */
export function ConditionBuilder(props: BuilderProps) {
  return <TreeEditor {...props} depth={1} label="Condition" />;
}

function TreeEditor({
  value,
  onChange,
  options,
  errors,
  path,
  depth,
  label,
}: BuilderProps & { depth: number; label: string }) {
  const setGroup = (i: number, g: ConditionGroup | null) => {
    const groups = g ? value.groups.map((x, j) => (j === i ? g : x)) : value.groups.filter((_, j) => j !== i);
    onChange({ ...value, groups });
  };
  return (
    <Stack gap="sm" data-depth={depth}>
      <NativeSelect
        label={depth === 1 ? 'Contacts match' : `${label}: contacts match`}
        w={320}
        value={value.logic}
        data={[
          { value: 'AND', label: 'every group (AND)' },
          { value: 'OR', label: 'any group (OR)' },
        ]}
        onChange={(e) => onChange({ ...value, logic: e.currentTarget.value as 'AND' | 'OR' })}
      />
      {value.groups.length === 0 && (
        <Text size="sm" c="dimmed">
          No groups: every contact matches.
        </Text>
      )}
      {value.groups.map((g, i) => {
        const gPath = `${path}.groups.${i}`;
        const gName = depth === 1 ? `group ${i + 1}` : `${label.toLowerCase()} group ${i + 1}`;
        return (
          <Paper key={i} p="sm" withBorder data-group={gName}>
            <Stack gap="xs">
              <Group justify="space-between">
                <Text size="sm" fw={600}>
                  {i > 0 ? `${value.logic} ` : ''}Group {i + 1}{' '}
                  <Text span size="xs" c="dimmed">
                    (all of these)
                  </Text>
                </Text>
                <Button
                  size="compact-sm"
                  variant="subtle"
                  color="red"
                  leftSection={<IconTrash size={14} />}
                  aria-label={`Remove ${gName}`}
                  onClick={() => setGroup(i, null)}
                >
                  Remove group
                </Button>
              </Group>
              {g.filters.map((f, j) => (
                <FilterRow
                  key={j}
                  filter={f}
                  options={options}
                  name={`filter ${j + 1} of ${gName}`}
                  errors={errorsAt(errors, `${gPath}.filters.${j}`)}
                  onChange={(nf) => setGroup(i, { ...g, filters: g.filters.map((x, k) => (k === j ? nf : x)) })}
                  onRemove={() => setGroup(i, { ...g, filters: g.filters.filter((_, k) => k !== j) })}
                />
              ))}
              {g.conditions && (
                <Paper p="sm" bg="var(--mantine-color-default-hover)">
                  <TreeEditor
                    value={g.conditions}
                    options={options}
                    errors={errors}
                    path={`${gPath}.conditions`}
                    depth={depth + 1}
                    label={`Nested in ${gName}`}
                    onChange={(t) => setGroup(i, { ...g, conditions: t })}
                  />
                  <Button
                    mt="xs"
                    size="compact-sm"
                    variant="subtle"
                    color="red"
                    onClick={() => setGroup(i, { filters: g.filters })}
                  >
                    Remove nested condition
                  </Button>
                </Paper>
              )}
              <Group gap="xs">
                <Button
                  size="compact-sm"
                  variant="light"
                  leftSection={<IconPlus size={14} />}
                  aria-label={`Add filter to ${gName}`}
                  onClick={() => setGroup(i, { ...g, filters: [...g.filters, newFilter()] })}
                >
                  Add filter
                </Button>
                {!g.conditions && depth < MAX_DEPTH && (
                  <Button
                    size="compact-sm"
                    variant="subtle"
                    leftSection={<IconSitemap size={14} />}
                    aria-label={`Add nested condition to ${gName}`}
                    onClick={() =>
                      setGroup(i, { ...g, conditions: { logic: 'OR', groups: [{ filters: [newFilter()] }] } })
                    }
                  >
                    Add nested condition
                  </Button>
                )}
              </Group>
            </Stack>
          </Paper>
        );
      })}
      <Group>
        <Button
          size="compact-sm"
          variant="default"
          leftSection={<IconPlus size={14} />}
          aria-label={depth === 1 ? 'Add group' : `Add group to ${label.toLowerCase()}`}
          onClick={() => onChange({ ...value, groups: [...value.groups, { filters: [newFilter()] }] })}
        >
          Add group
        </Button>
      </Group>
    </Stack>
  );
}
