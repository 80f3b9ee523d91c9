import { ActionIcon, Button, Divider, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { IconLink, IconTrash, IconX } from '@tabler/icons-react';
import { lazy, Suspense, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/errors';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import {
  addTransition,
  deleteStep,
  deleteTransition,
  updateStep,
  updateWorkflow,
  useWorkflowFields,
  type Step,
  type Workflow,
} from './api';
import { STEP_LABELS, freeOutlets, outletLabel } from './graph';
import { StepConfigFields } from './StepConfigFields';
import { draftOf, serverErrors, toConfig, type Draft, type DraftErrors } from './stepDraft';
import { triggerBody } from './triggerDraft';

// A SEND_EMAIL step's clicks per link and its click map load with the first such step opened.
const StepLinks = lazy(() => import('./StepLinks').then((m) => ({ default: m.StepLinks })));

interface Props {
  projectId: string;
  workflow: Workflow;
  step: Step;
  onClose: () => void;
  /** After any change, to reload the graph. */
  onChanged: () => void;
  /** A refused transition (graph rule), to mark on the canvas. */
  onRefused: (err: unknown) => void;
}

/**
 * The selected step's side panel: its name and config (`PATCH /workflows/:id/steps/:stepId`; for the
 * trigger, the workflow's name and trigger through `PATCH /workflows/:id`), its outgoing links with a
 * remove button, "connect to" another step on a free way out, and delete (spliced: a step with one
 * successor hands it to its predecessors). Mount it with `key={step.id}` so a new selection starts fresh.
 */
export function StepPanel({ projectId, workflow, step, onClose, onChanged, onRefused }: Props) {
  const [draft, setDraft] = useState<Draft>(() => ({
    ...draftOf(step),
    ...(step.type === 'TRIGGER' ? { name: workflow.name, triggerType: workflow.triggerType } : {}),
  }));
  const [errors, setErrors] = useState<DraftErrors>({});
  const [deleting, setDeleting] = useState(false);
  const fields = useWorkflowFields(projectId);
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const nameOf = (id: string) => workflow.steps.find((s) => s.id === id)?.name ?? '';
  const isTrigger = step.type === 'TRIGGER';

  const save = useMutation({
    mutationFn: async (config: Record<string, unknown>): Promise<void> => {
      if (isTrigger)
        await updateWorkflow(projectId, workflow.id, { name: draft.name.trim(), ...triggerBody(draft).body });
      else await updateStep(projectId, workflow.id, step.id, { name: draft.name.trim(), config });
    },
    onMutate: () => setErrors({}),
    onSuccess: () => {
      onChanged();
      notifySuccess(`${draft.name.trim()} saved.`);
    },
    onError: (err) => {
      if (err instanceof ApiError) setErrors(serverErrors(err.fieldErrors).errors);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { errors: found, config } = toConfig(step.type, draft, fields.data);
    setErrors(found);
    if (Object.keys(found).length === 0) save.mutate(config);
  };

  const outlets = freeOutlets(step, workflow.transitions);
  const [target, setTarget] = useState<string | null>(null);
  const [outlet, setOutlet] = useState<string>('0');
  const connect = useMutation({
    mutationFn: () =>
      addTransition(projectId, workflow.id, { fromStepId: step.id, toStepId: target!, ...outlets[Number(outlet)] }),
    onSuccess: () => {
      setTarget(null);
      onChanged();
    },
    onError: (err) => onRefused(err),
  });
  const unlink = useMutation({
    mutationFn: (id: string) => deleteTransition(projectId, workflow.id, id),
    onSuccess: () => onChanged(),
  });
  const outgoing = workflow.transitions.filter((t) => t.fromStepId === step.id);
  const unshownSave = save.error instanceof ApiError && !serverErrors(save.error.fieldErrors).all;

  return (
    <Paper p="md" data-testid="step-panel" component="aside" aria-label={`Step ${step.name}`}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap">
          <div>
            <Text size="xs" fw={700} c="gray.7" tt="uppercase">
              {STEP_LABELS[step.type]}
            </Text>
            <Title order={2} size="h4">
              {step.name}
            </Title>
          </div>
          <ActionIcon variant="subtle" color="gray" aria-label="Close the step panel" onClick={onClose}>
            <IconX size={18} />
          </ActionIcon>
        </Group>
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <TextInput
              label={isTrigger ? 'Workflow name' : 'Step name'}
              value={draft.name}
              onChange={(e) => set({ name: e.currentTarget.value })}
              error={errors.name}
            />
            <StepConfigFields projectId={projectId} type={step.type} draft={draft} set={set} errors={errors} />
            {save.isError &&
              (unshownSave || !(save.error instanceof ApiError) || save.error.fieldErrors.length === 0) && (
                <ErrorAlert error={save.error} />
              )}
            <Group>
              <Button type="submit" loading={save.isPending}>
                Save step
              </Button>
            </Group>
          </Stack>
        </form>

        {step.type === 'SEND_EMAIL' && (
          <Suspense>
            <StepLinks projectId={projectId} workflowId={workflow.id} step={step} />
          </Suspense>
        )}

        {step.type !== 'EXIT' && (
          <>
            <Divider label="Next steps" labelPosition="left" />
            {outgoing.length === 0 && (
              <Text size="sm" c="dimmed">
                No next step: the workflow ends here.
              </Text>
            )}
            {outgoing.map((t) => (
              <Group key={t.id} justify="space-between" wrap="nowrap" gap="xs">
                <Text size="sm">
                  {outletLabel(t, step) ? `${outletLabel(t, step)} → ` : '→ '}
                  {nameOf(t.toStepId)}
                </Text>
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove the link to ${nameOf(t.toStepId)}`}
                  loading={unlink.isPending && unlink.variables === t.id}
                  onClick={() => unlink.mutate(t.id)}
                >
                  <IconX size={16} />
                </ActionIcon>
              </Group>
            ))}
            {unlink.isError && <ErrorAlert error={unlink.error} />}
            {outlets.length > 0 && (
              <Stack gap="xs">
                <Select
                  label="Connect to"
                  placeholder="Pick a step"
                  data={workflow.steps
                    .filter((s) => s.id !== step.id && s.type !== 'TRIGGER')
                    .map((s) => ({ value: s.id, label: s.name }))}
                  value={target}
                  onChange={setTarget}
                />
                {outlets.length > 1 && (
                  <Select
                    label={step.type === 'WAIT_FOR_EVENT' ? 'Outcome' : 'Branch'}
                    data={outlets.map((o, i) => ({ value: String(i), label: outletLabel(o, step)! }))}
                    value={outlet}
                    onChange={(v) => setOutlet(v ?? '0')}
                    allowDeselect={false}
                  />
                )}
                <Group>
                  <Button
                    variant="default"
                    leftSection={<IconLink size={16} />}
                    disabled={!target}
                    loading={connect.isPending}
                    onClick={() => connect.mutate()}
                  >
                    Connect
                  </Button>
                </Group>
              </Stack>
            )}
          </>
        )}

        {!isTrigger && (
          <>
            <Divider />
            <Group>
              <Button
                color="red"
                variant="light"
                leftSection={<IconTrash size={16} />}
                onClick={() => setDeleting(true)}
              >
                Delete step
              </Button>
            </Group>
            <ConfirmDialog
              opened={deleting}
              onClose={() => setDeleting(false)}
              title={`Delete ${step.name}?`}
              confirmLabel="Delete step"
              danger
              onConfirm={async () => {
                await deleteStep(projectId, workflow.id, step.id);
                onChanged();
                onClose();
              }}
            >
              <Text size="sm">
                {outgoing.length === 1
                  ? `The steps leading here will lead to ${nameOf(outgoing[0].toStepId)} instead.`
                  : 'Its links go with it; the steps after it are no longer reached from here.'}{' '}
                Executions already past this step are not affected.
              </Text>
            </ConfirmDialog>
          </>
        )}
      </Stack>
    </Paper>
  );
}
