import type { Step, StepRun, Transition, Workflow } from './api';
import { STEP_LABELS, freeOutlets, outletLabel, runOutcome, stepSummary, type Outlet } from './graph';
import type { StepStats } from './stepFigures';
import { triggerSummary } from './triggerDraft';

/**
 * Where the server said a change broke a graph rule: the step at fault with the message, the
 * transition in the way, and the steps of a cycle (from the error's `details`).
 */
export interface GraphFault {
  message: string;
  stepId?: string;
  transitionId?: string;
  path?: string[];
}

/** What the graph shows and offers, before layout. */
export interface CanvasProps {
  workflow: Workflow;
  templateName: (id: string) => string | undefined;
  selectedId?: string | null;
  onSelect?: (step: Step) => void;
  /** Editing: "add a step" after a free way out of a step. */
  onAddAfter?: (step: Step, outlet: Outlet) => void;
  /** Editing: insert a step on a transition. */
  onInsert?: (t: Transition) => void;
  fault?: GraphFault | null;
  /** The execution being viewed: its step runs. */
  runs?: StepRun[];
  /** "Show stats": each step's figures over the chosen range (`GET /workflows/:id/stats`), drawn on its node. */
  stats?: StepStats[] | null;
  height?: number;
}

/** A step node, ready to draw: every text computed, every action bound. */
export type NodeView = {
  id: string;
  step: Step;
  typeLabel: string;
  summary: string;
  /** "Add a step" buttons, one per free way out (editing only). */
  adds: Array<{ key: string; label: string; ariaLabel: string; onClick: () => void }>;
  /** The server's complaint: the message on the step at fault, '' on a cycle's other steps. */
  error?: string;
  /** This step's run in the execution being viewed. */
  run?: { status: string; outcome: string; time: string };
  /** Its figures over the stats range when stats are shown (a step the stats do not know has zeros); the node words them (stepFigures.ts). */
  stats?: StepStats;
  selected: boolean;
  /** Opens the step in the side panel (editing only): the keyboard's way to select it. */
  onEdit?: () => void;
};

/** A transition, ready to draw. */
export type EdgeView = {
  id: string;
  source: string;
  target: string;
  label: string | null;
  fromName: string;
  toName: string;
  onInsert?: () => void;
  error: boolean;
  visited: boolean;
};

export interface GraphView {
  nodes: NodeView[];
  edges: EdgeView[];
  steps: Step[];
  transitions: Transition[];
  title: string;
  /** Stats are drawn: the nodes are taller. */
  withStats: boolean;
}

const timeOf = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' }) : '';

/**
 * The drawable graph of a workflow: node texts (type, name, config summary, run outcome and time),
 * the faulty steps and edges of a refused change, the visited ones of an execution, and the
 * "add a step" actions.
 */
export function buildView(p: CanvasProps): GraphView {
  const { workflow, fault } = p;
  const runOf = new Map<string, StepRun>();
  for (const r of p.runs ?? []) runOf.set(r.stepId, r);
  const faulty = new Set(fault?.path ?? []);
  if (fault?.stepId) faulty.add(fault.stepId);
  const nameOf = new Map(workflow.steps.map((s) => [s.id, s.name]));
  const stepOf = new Map(workflow.steps.map((s) => [s.id, s]));
  const statsOf = new Map((p.stats ?? []).map((s) => [s.stepId, s]));
  const noStats = (s: Step): StepStats => ({
    stepId: s.id,
    type: s.type,
    name: s.name,
    entered: 0,
    completed: 0,
    failed: 0,
    exited: 0,
    waitingNow: 0,
    mail:
      s.type === 'SEND_EMAIL'
        ? { emails: 0, sent: 0, delivered: 0, opened: 0, clicked: 0, humanOpened: 0, humanClicked: 0, bounced: 0 }
        : null,
  });
  const nodes: NodeView[] = workflow.steps.map((s) => {
    const run = runOf.get(s.id);
    return {
      id: s.id,
      step: s,
      typeLabel: STEP_LABELS[s.type],
      summary: s.type === 'TRIGGER' ? triggerSummary(workflow) : stepSummary(s, p.templateName),
      adds: !p.onAddAfter
        ? []
        : freeOutlets(s, workflow.transitions).map((o) => {
            const label = outletLabel(o, s);
            return {
              key: o.branch ?? o.waitOutcome ?? 'next',
              label: label ?? 'Add step',
              ariaLabel: `Add a step after ${s.name}${label ? ` (${label})` : ''}`,
              onClick: () => p.onAddAfter!(s, o),
            };
          }),
      error: faulty.has(s.id) ? (s.id === fault?.stepId ? fault.message : '') : undefined,
      run: run && { status: run.status, outcome: runOutcome(run), time: timeOf(run.completedAt ?? run.startedAt) },
      stats: p.stats ? (statsOf.get(s.id) ?? noStats(s)) : undefined,
      selected: s.id === p.selectedId,
      onEdit: p.onSelect ? () => p.onSelect!(s) : undefined,
    };
  });
  const path = fault?.path ?? [];
  const inCycle = (t: Transition) => {
    const i = path.indexOf(t.fromStepId);
    return i >= 0 && path[i + 1] === t.toStepId;
  };
  const edges: EdgeView[] = workflow.transitions.map((t) => ({
    id: t.id,
    source: t.fromStepId,
    target: t.toStepId,
    label: outletLabel(t, stepOf.get(t.fromStepId)),
    fromName: nameOf.get(t.fromStepId) ?? '',
    toName: nameOf.get(t.toStepId) ?? '',
    onInsert: p.onInsert ? () => p.onInsert!(t) : undefined,
    error: t.id === fault?.transitionId || inCycle(t),
    visited: runOf.has(t.fromStepId) && runOf.has(t.toStepId),
  }));
  return {
    nodes,
    edges,
    steps: workflow.steps,
    transitions: workflow.transitions,
    title: `Steps of ${workflow.name}`,
    withStats: Boolean(p.stats),
  };
}
