import { Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';
import {
  addStep,
  addTransition,
  deleteTransition,
  useWorkflowFields,
  type Step,
  type StepType,
  type Transition,
  type Workflow,
} from './api';
import { STEP_LABELS, outletLabel, outletsOf, type Outlet } from './graph';
import { StepConfigFields } from './StepConfigFields';
import { newDraft, serverErrors, startBranches, toConfig, type Draft, type DraftErrors } from './stepDraft';

/** The way out an inserted step of `type` continues on, in words, or null when it has only one. */
function continuesOn(type: StepType, draft: Draft): string | null {
  if (type === 'CONDITION') return '"yes" branch';
  if (type === 'WAIT_FOR_EVENT') return '"event" outcome';
  if ((type === 'SPLIT' || type === 'SWITCH') && draft.branches[0]) return `first branch, ${draft.branches[0].key}`;
  return null;
}

/** The step was added but linking it in failed. */
class LinkFailed extends Error {
  constructor(readonly cause: unknown) {
    super('The step was added but could not be linked');
  }
}

/** Where a new step goes: after a free way out of a step, or on a transition (between two steps). */
export type AddTarget = { kind: 'after'; from: Step; outlet: Outlet } | { kind: 'insert'; transition: Transition };

/** The step types a person may add, in the order STEP_LABELS lists them (the trigger comes with the workflow). */
const TYPES = (Object.keys(STEP_LABELS) as Array<keyof typeof STEP_LABELS>).filter((t) => t !== 'TRIGGER');

interface Props {
  projectId: string;
  workflow: Workflow;
  target: AddTarget | null;
  onClose: () => void;
  /** After the graph changed (also after a partial failure), to reload it. */
  onChanged: () => void;
  /** A refused transition, to mark on the canvas. */
  onRefused: (err: unknown) => void;
}

/**
 * "Add a step": type, name and config, then links it in. After a step: one transition from that
 * step's free way out. On a transition: the transition is removed and two are added (from its source
 * to the new step with the same branch, and from the new step's first way out to its target); an EXIT
 * cannot go there since it has no way out.
 */
export function AddStepModal({ projectId, workflow, target, onClose, onChanged, onRefused }: Props) {
  const [type, setType] = useState<StepType>('SEND_EMAIL');
  const [draft, setDraft] = useState<Draft>(newDraft(STEP_LABELS.SEND_EMAIL));
  const [errors, setErrors] = useState<DraftErrors>({});
  const fields = useWorkflowFields(projectId);
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const stepName = (id: string) => workflow.steps.find((s) => s.id === id)?.name ?? '';

  const link = async (step: Step) => {
    // Inserted on a link, the new step continues along its first way out (a branching step's first branch).
    if (target?.kind === 'after') {
      await addTransition(projectId, workflow.id, { fromStepId: target.from.id, toStepId: step.id, ...target.outlet });
    } else if (target?.kind === 'insert') {
      const t = target.transition;
      await deleteTransition(projectId, workflow.id, t.id);
      await addTransition(projectId, workflow.id, {
        fromStepId: t.fromStepId,
        toStepId: step.id,
        branch: t.branch,
        waitOutcome: t.waitOutcome,
      });
      await addTransition(projectId, workflow.id, { fromStepId: step.id, toStepId: t.toStepId, ...outletsOf(step)[0] });
    }
  };

  const save = useMutation({
    mutationFn: async ({ config }: { config: Record<string, unknown> }) => {
      const step = await addStep(projectId, workflow.id, {
        type: type as Exclude<StepType, 'TRIGGER'>,
        name: draft.name.trim(),
        config,
      });
      try {
        await link(step);
      } catch (err) {
        throw new LinkFailed(err);
      }
      return step;
    },
    onSuccess: () => {
      onChanged();
      close();
    },
    onError: (err) => {
      if (err instanceof LinkFailed) {
        // The step exists: the modal closes and the canvas shows where linking it failed.
        onRefused(err.cause);
        onChanged();
        close();
        return;
      }
      if (err instanceof ApiError) {
        const s = serverErrors(err.fieldErrors);
        setErrors(s.errors);
      }
    },
  });

  const close = () => {
    setType('SEND_EMAIL');
    setDraft(newDraft(STEP_LABELS.SEND_EMAIL));
    setErrors({});
    save.reset();
    onClose();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { errors: found, config } = toConfig(type, draft, fields.data);
    setErrors(found);
    if (Object.keys(found).length === 0) save.mutate({ config });
  };
  const where = !target
    ? ''
    : target.kind === 'after'
      ? `After ${target.from.name}${outletLabel(target.outlet) ? ` (${outletLabel(target.outlet)})` : ''}`
      : `Between ${stepName(target.transition.fromStepId)} and ${stepName(target.transition.toStepId)}`;
  const types = TYPES.filter((t) => target?.kind !== 'insert' || t !== 'EXIT');
  const unshown = save.error instanceof ApiError && !serverErrors(save.error.fieldErrors).all;

  return (
    <Modal opened={target !== null} onClose={close} title={<Text fw={600}>Add a step</Text>} size="lg" centered>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <Text size="sm" c="dimmed" data-testid="add-step-where">
            {where}
          </Text>
          <Select
            label="Step type"
            data={types.map((t) => ({ value: t, label: STEP_LABELS[t] }))}
            value={type}
            allowDeselect={false}
            onChange={(v) => {
              const next = (v ?? 'SEND_EMAIL') as StepType;
              // A name still the default follows the type.
              if (draft.name === STEP_LABELS[type]) set({ name: STEP_LABELS[next] });
              // A split starts as an even A/B, a switch with one branch to fill in.
              set({ branches: startBranches(next) });
              setType(next);
              setErrors({});
            }}
            data-autofocus
          />
          <TextInput
            label="Step name"
            value={draft.name}
            onChange={(e) => set({ name: e.currentTarget.value })}
            error={errors.name}
          />
          <StepConfigFields projectId={projectId} type={type} draft={draft} set={set} errors={errors} />
          {target?.kind === 'insert' && continuesOn(type, draft) && (
            <Text size="xs" c="dimmed">
              The steps below continue on its {continuesOn(type, draft)}.
            </Text>
          )}
          {save.isError && (unshown || !(save.error instanceof ApiError) || save.error.fieldErrors.length === 0) && (
            <ErrorAlert error={save.error} />
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              Add step
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
