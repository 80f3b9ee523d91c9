import { Anchor, Box, Button, Flex, Group, Stack, Switch, Tabs, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconArrowLeft, IconPlayerPlay } from '@tabler/icons-react';
import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ContentSkeleton } from '../../components/Loading';
import { notifyError, notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { useOpenedOnce } from '../../components/useOpenedOnce';
import { useProject } from '../projects/ProjectContext';
import { triggerSentence } from './triggerDraft';
import type { AddTarget } from './AddStepModal';
import {
  updateWorkflow,
  useTemplateChoices,
  useWorkflow,
  workflowKeys,
  type Step,
  type Transition,
  type Workflow,
  type WorkflowPatch,
} from './api';
import { ExecutionsTab } from './ExecutionsTab';
import type { Outlet } from './graph';
import { GraphStatsBar, useGraphStats } from './GraphStats';
import { WorkflowCanvas, type GraphFault } from './LazyCanvas';

// The step dialog and the side panel (their forms) load on first use, not with the editor.
const StepPanel = lazy(() => import('./StepPanel').then((m) => ({ default: m.StepPanel })));
const AddStepModal = lazy(() => import('./AddStepModal').then((m) => ({ default: m.AddStepModal })));
const StartForContactsModal = lazy(() =>
  import('./StartForContactsModal').then((m) => ({ default: m.StartForContactsModal })),
);

/** "Start for contacts": the manual start dialog, loaded on its first opening. */
function StartAction({ projectId, workflow }: { projectId: string; workflow: Workflow }) {
  const [opened, setOpened] = useState(false);
  const loaded = useOpenedOnce(opened);
  return (
    <>
      <Button variant="default" leftSection={<IconPlayerPlay size={16} />} onClick={() => setOpened(true)}>
        Start for contacts
      </Button>
      <Suspense>
        {loaded && (
          <StartForContactsModal
            projectId={projectId}
            workflow={workflow}
            opened={opened}
            onClose={() => setOpened(false)}
          />
        )}
      </Suspense>
    </>
  );
}

/** The graph fault an error names in its `details` (graph rules), or null for any other error. */
function faultOf(err: unknown): GraphFault | null {
  if (!(err instanceof ApiError) || !err.details || typeof err.details.rule !== 'string') return null;
  const d = err.details as { stepId?: string; transitionId?: string; path?: string[] };
  return { message: err.message, stepId: d.stepId, transitionId: d.transitionId, path: d.path };
}

/** Enabled and re-entry switches (`PATCH /workflows/:id`). */
function Settings({ projectId, workflow }: { projectId: string; workflow: Workflow }) {
  const qc = useQueryClient();
  const patch = useMutation({
    mutationFn: (body: WorkflowPatch) => updateWorkflow(projectId, workflow.id, body),
    onSuccess: (w, body) => {
      qc.setQueryData(workflowKeys.one(projectId, workflow.id), w);
      void qc.invalidateQueries({ queryKey: workflowKeys.list(projectId) });
      if (body.enabled !== undefined)
        notifySuccess(
          w.enabled ? `${w.name} is on: new events start executions.` : `${w.name} is off: no new executions start.`,
        );
    },
    onError: (err) => notifyError(err, 'Could not change the workflow'),
  });
  return (
    <Group gap="md">
      <Switch
        label="Enabled"
        checked={workflow.enabled}
        disabled={patch.isPending}
        onChange={(e) => patch.mutate({ enabled: e.currentTarget.checked })}
      />
      <Switch
        label="Allow re-entry"
        checked={workflow.allowReentry}
        disabled={patch.isPending}
        onChange={(e) => patch.mutate({ allowReentry: e.currentTarget.checked })}
      />
    </Group>
  );
}

/** The editor of a loaded workflow: canvas, side panel, add-step dialog, and the Executions tab. */
function Editor({
  projectId,
  workflow,
  templateName,
}: {
  projectId: string;
  workflow: Workflow;
  templateName: (id: string) => string | undefined;
}) {
  const qc = useQueryClient();
  const [selected, setSelected] = useState<string | null>(null);
  const [target, setTarget] = useState<AddTarget | null>(null);
  const addLoaded = useOpenedOnce(target !== null);
  const [refusal, setRefusal] = useState<unknown>(null);
  const fault = useMemo(() => faultOf(refusal), [refusal]);
  const reload = () => void qc.invalidateQueries({ queryKey: workflowKeys.one(projectId, workflow.id) });
  const changed = () => {
    setRefusal(null);
    reload();
  };
  // A refusal is about the change tried in the step's panel: closing it or choosing another step
  // moves on from it.
  const onSelect = useCallback(
    (s: Step) => {
      if (s.id !== selected) setRefusal(null);
      setSelected(s.id);
    },
    [selected],
  );
  const onAddAfter = useCallback((from: Step, outlet: Outlet) => setTarget({ kind: 'after', from, outlet }), []);
  const onInsert = useCallback((transition: Transition) => setTarget({ kind: 'insert', transition }), []);
  const step = workflow.steps.find((s) => s.id === selected);
  const graphStats = useGraphStats(projectId, workflow.id);
  const tip =
    workflow.steps.length === 1
      ? 'Press "Add step" under the trigger to build the workflow.'
      : 'Select a step to edit it; "+" on a link inserts a step there.';

  return (
    <Stack gap="sm">
      {refusal !== null && (
        <ErrorAlert error={refusal} title={fault ? 'The change breaks a rule of the graph' : undefined} />
      )}
      <Text size="sm" c="dimmed">
        {tip}
      </Text>
      <GraphStatsBar g={graphStats} />
      {/* On a phone the step panel goes under the graph: beside it, it left the graph no width. */}
      <Flex direction={{ base: 'column', sm: 'row' }} align={{ base: 'stretch', sm: 'flex-start' }} gap="md">
        <Box style={{ flex: 1, minWidth: 0 }}>
          <WorkflowCanvas
            workflow={workflow}
            templateName={templateName}
            selectedId={selected}
            onSelect={onSelect}
            onAddAfter={onAddAfter}
            onInsert={onInsert}
            fault={fault}
            stats={graphStats.stats}
          />
        </Box>
        {step && (
          <Box w={{ base: '100%', sm: 360 }} style={{ flexShrink: 0 }}>
            <Suspense fallback={<ContentSkeleton rows={5} />}>
              <StepPanel
                key={`${step.id}:${step.updatedAt}`}
                projectId={projectId}
                workflow={workflow}
                step={step}
                onClose={() => {
                  setSelected(null);
                  setRefusal(null);
                }}
                onChanged={changed}
                onRefused={setRefusal}
              />
            </Suspense>
          </Box>
        )}
      </Flex>
      <Suspense>
        {addLoaded && (
          <AddStepModal
            projectId={projectId}
            workflow={workflow}
            target={target}
            onClose={() => setTarget(null)}
            onChanged={changed}
            onRefused={setRefusal}
          />
        )}
      </Suspense>
    </Stack>
  );
}

/** `/p/:projectId/workflows/:workflowId`: the visual editor of one workflow and its executions. */
export function WorkflowEditorPage() {
  const { project } = useProject();
  const { workflowId = '' } = useParams();
  const wf = useWorkflow(project.id, workflowId);
  const templates = useTemplateChoices(project.id);
  const byId = useMemo(() => new Map((templates.data?.data ?? []).map((t) => [t.id, t.name])), [templates.data]);
  const templateName = useCallback((id: string) => byId.get(id), [byId]);
  const [tab, setTab] = useState<string | null>('graph');
  return (
    <>
      <Anchor
        component={Link}
        to={`/p/${project.id}/workflows`}
        size="sm"
        mb="xs"
        display="inline-flex"
        style={{ alignItems: 'center', gap: 4 }}
      >
        <IconArrowLeft size={14} /> Workflows
      </Anchor>
      <QueryState query={wf}>
        {(w) => (
          <>
            <PageHeader
              title={w.name}
              description={`${triggerSentence(w)}${w.schedule ? ` ${w.schedule.description}.` : ''}`}
              actions={
                // Wraps on a phone: the switches go under the button instead of off the screen.
                <Group gap="md">
                  <StartAction projectId={project.id} workflow={w} />
                  <Settings projectId={project.id} workflow={w} />
                </Group>
              }
            />
            <Tabs value={tab} onChange={setTab} keepMounted={false}>
              <Tabs.List mb="md">
                <Tabs.Tab value="graph">Steps</Tabs.Tab>
                <Tabs.Tab value="executions">Executions</Tabs.Tab>
              </Tabs.List>
              <Tabs.Panel value="graph">
                <Editor projectId={project.id} workflow={w} templateName={templateName} />
              </Tabs.Panel>
              <Tabs.Panel value="executions">
                <ExecutionsTab projectId={project.id} workflow={w} templateName={templateName} />
              </Tabs.Panel>
            </Tabs>
          </>
        )}
      </QueryState>
    </>
  );
}
