import { ActionIcon, Button, Group, NumberInput, Paper, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import type { WorkflowFields } from './api';
import { ConditionStepFields } from './ConditionStepFields';
import {
  MAX_SWITCH_BRANCHES,
  SPLIT_BRANCHES,
  newBranch,
  nextBranchKey,
  weightSum,
  type BranchDraft,
  type Draft,
  type DraftErrors,
} from './stepDraft';

interface Props {
  draft: Draft;
  set: (patch: Partial<Draft>) => void;
  errors: DraftErrors;
}

/** The branches' problem (stepDraft.ts `branchProblem`, or the server's), under the list. */
function BranchError({ error }: { error?: string }) {
  return error ? (
    <Text size="xs" c="red.8" role="alert">
      {error}
    </Text>
  ) : null;
}

/** Key and label inputs of one branch, and its remove button. */
function KeyLabel({
  b,
  i,
  setBranch,
  remove,
  canRemove,
}: {
  b: BranchDraft;
  i: number;
  setBranch: (patch: Partial<BranchDraft>) => void;
  remove: () => void;
  canRemove: boolean;
}) {
  return (
    <Group gap={6} wrap="nowrap" align="flex-end">
      <TextInput
        label={`Branch ${i + 1} key`}
        description={i === 0 ? 'Names the branch on its link' : undefined}
        value={b.key}
        onChange={(e) => setBranch({ key: e.currentTarget.value })}
        w={110}
      />
      <TextInput
        label="Label"
        placeholder="Optional"
        value={b.label}
        onChange={(e) => setBranch({ label: e.currentTarget.value })}
        style={{ flex: 1 }}
      />
      <ActionIcon
        variant="subtle"
        color="red"
        size="lg"
        mb={2}
        aria-label={`Remove branch ${b.key || i + 1}`}
        disabled={!canRemove}
        onClick={remove}
      >
        <IconTrash size={16} />
      </ActionIcon>
    </Group>
  );
}

/** Updates and removals of `draft.branches` by index. */
function useBranchEdits(draft: Draft, set: Props['set']) {
  const setBranch = (i: number, patch: Partial<BranchDraft>) =>
    set({ branches: draft.branches.map((b, k) => (k === i ? { ...b, ...patch } : b)) });
  const remove = (i: number) => set({ branches: draft.branches.filter((_, k) => k !== i) });
  return { setBranch, remove };
}

/**
 * A SPLIT step's branches: key, label and share in % each (2 to 5), with the running total, which
 * must come to 100%. Each contact goes down one branch, picked from its execution (the same one again
 * on a retry).
 */
export function SplitStepFields({ draft, set, errors }: Props) {
  const { setBranch, remove } = useBranchEdits(draft, set);
  const sum = weightSum(draft.branches);
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>
        Branches
      </Text>
      <Text size="xs" c="dimmed">
        Each contact goes down one branch at random, in these shares. Connect every branch to a step; lead a control
        group to an Exit step.
      </Text>
      {draft.branches.map((b, i) => (
        <Group key={i} gap={6} wrap="nowrap" align="flex-end">
          <div style={{ flex: 1 }}>
            <KeyLabel
              b={b}
              i={i}
              setBranch={(p) => setBranch(i, p)}
              remove={() => remove(i)}
              canRemove={draft.branches.length > SPLIT_BRANCHES.min}
            />
          </div>
          <NumberInput
            label="Share %"
            min={0}
            max={100}
            step={5}
            allowDecimal={false}
            value={b.weight}
            onChange={(v) => setBranch(i, { weight: v })}
            w={90}
          />
        </Group>
      ))}
      <Text size="xs" c={sum === 100 ? 'dimmed' : 'red.8'} data-testid="split-total">
        {sum === 100 ? 'The shares add up to 100%.' : `The shares add up to ${sum}%; they must add up to 100%.`}
      </Text>
      <BranchError error={errors.branches} />
      {draft.branches.length < SPLIT_BRANCHES.max && (
        <Group>
          <Button
            size="compact-sm"
            variant="default"
            leftSection={<IconPlus size={14} />}
            onClick={() => set({ branches: [...draft.branches, newBranch(nextBranchKey(draft.branches))] })}
          >
            Add branch
          </Button>
        </Group>
      )}
    </Stack>
  );
}

/**
 * A SWITCH step's branches, tried in order: key, label and a condition each (the CONDITION step's
 * editor), the first that holds wins; the default branch, when none does, can be named.
 */
export function SwitchStepFields({ fields, draft, set, errors }: Props & { fields?: WorkflowFields }) {
  const { setBranch, remove } = useBranchEdits(draft, set);
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>
        Branches
      </Text>
      <Text size="xs" c="dimmed">
        Tried from the top: the contact goes down the first branch whose condition holds, else the default branch.
      </Text>
      {draft.branches.map((b, i) => (
        <Paper key={i} withBorder p="xs">
          <Stack gap={6}>
            <KeyLabel
              b={b}
              i={i}
              setBranch={(p) => setBranch(i, p)}
              remove={() => remove(i)}
              canRemove={draft.branches.length > 1}
            />
            <ConditionStepFields
              fields={fields}
              draft={{ ...draft, field: b.field, operator: b.operator, value: b.value }}
              set={(p) =>
                setBranch(i, {
                  ...(p.field !== undefined ? { field: p.field } : {}),
                  ...(p.operator !== undefined ? { operator: p.operator } : {}),
                  ...(p.value !== undefined ? { value: p.value } : {}),
                })
              }
              errors={{}}
            />
          </Stack>
        </Paper>
      ))}
      <BranchError error={errors.branches} />
      {draft.branches.length < MAX_SWITCH_BRANCHES && (
        <Group>
          <Button
            size="compact-sm"
            variant="default"
            leftSection={<IconPlus size={14} />}
            onClick={() => set({ branches: [...draft.branches, newBranch(nextBranchKey(draft.branches))] })}
          >
            Add branch
          </Button>
        </Group>
      )}
      <TextInput
        label="Default branch label"
        description='Where contacts go when no branch matches (the "default" link)'
        placeholder="otherwise"
        value={draft.defaultLabel}
        onChange={(e) => set({ defaultLabel: e.currentTarget.value })}
      />
    </Stack>
  );
}
