import { AppError } from '../http/errors.js';

/**
 * The rules that keep a workflow graph valid, in one module (graph.service.ts applies them to each
 * edit, workflows.service.ts and executions.service.ts before a workflow runs). Pure: they read the
 * steps and transitions they are given.
 *
 * Edges (transitions) leave a step by an outlet:
 * - CONDITION: `branch` yes | no; WAIT_FOR_EVENT: `waitOutcome` EVENT | TIMEOUT;
 * - SPLIT: `branch` = one of its branch keys; SWITCH: `branch` = one of its branch keys or
 *   {@link SWITCH_DEFAULT_BRANCH} (taken when no branch matches);
 * - EXIT: none; every other step: one unlabelled edge.
 * At most one edge per outlet; no self links, no edge into the TRIGGER step, no cycles. A SPLIT or
 * SWITCH step only runs with an edge on every outlet ({@link graphProblems}); a CONDITION or a wait
 * with an unconnected outlet ends the execution there (COMPLETED), as it always did.
 */

/** The branches of a CONDITION step. */
export const CONDITION_BRANCHES = ['yes', 'no'] as const;

/** The outlet of a SWITCH step taken when none of its branches matches; no branch may use this key. */
export const SWITCH_DEFAULT_BRANCH = 'default';

/** A SPLIT or SWITCH branch key: 1–32 letters, digits, `_` or `-`, starting with a letter or digit. */
export const BRANCH_KEY = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** A step as the rules read it. */
export interface RuleStep {
  id: string;
  type: string;
  name: string;
  config: Record<string, unknown>;
}

/** A transition as the rules read it. */
export interface RuleEdge {
  id: string;
  fromStepId: string;
  toStepId: string;
  branch: string | null;
  waitOutcome: string | null;
}

/** A way out of a step: a branch (CONDITION, SPLIT, SWITCH), a wait outcome, or neither (the single next step). */
export interface Outlet {
  branch?: string;
  waitOutcome?: 'EVENT' | 'TIMEOUT';
}

/** A broken rule: the field of the request at fault, the rule's code, a sentence, and where it breaks. */
export interface RuleBreak {
  field: string;
  code: string;
  message: string;
  /** The step at fault. */
  stepId: string;
  /** The existing transition in the way (a taken outlet, a second outgoing edge, an edge a config change orphans). */
  transitionId?: string;
  /** The step ids of the cycle a new edge would close, from its target back to its source. */
  path?: string[];
  /** The branch concerned, for branch rules. */
  branch?: string;
}

/** The keys of a SPLIT or SWITCH step's branches as stored in its config (`branches[].key`). */
function configBranchKeys(config: Record<string, unknown>): string[] {
  const branches = (config as { branches?: Array<{ key?: unknown }> }).branches;
  return Array.isArray(branches) ? branches.map((b) => String(b?.key)) : [];
}

/** The branch keys a step's edges may carry: yes/no, a SPLIT's keys, a SWITCH's keys and `default`; null for a step without branches. */
export function branchKeysOf(step: Pick<RuleStep, 'type' | 'config'>): string[] | null {
  if (step.type === 'CONDITION') return [...CONDITION_BRANCHES];
  if (step.type === 'SPLIT') return configBranchKeys(step.config);
  if (step.type === 'SWITCH') return [...configBranchKeys(step.config), SWITCH_DEFAULT_BRANCH];
  return null;
}

/** Every outlet of a step (EXIT: none), in the order an editor offers them. */
export function outletsOf(step: Pick<RuleStep, 'type' | 'config'>): Outlet[] {
  if (step.type === 'EXIT') return [];
  if (step.type === 'WAIT_FOR_EVENT') return [{ waitOutcome: 'EVENT' }, { waitOutcome: 'TIMEOUT' }];
  const keys = branchKeysOf(step);
  return keys ? keys.map((branch) => ({ branch })) : [{}];
}

const quoted = (s: RuleStep) => `Step "${s.name}"`;

/**
 * Whether a new edge `from` → `to` with `branch` / `waitOutcome` keeps the graph valid, given the
 * workflow's existing `edges`. Rules in order: `self_link`, `trigger_incoming`, `exit_outgoing`;
 * for a step with branches `branch_required`, `branch_unknown`, `branch_not_allowed` (a waitOutcome),
 * `branch_taken`; for a wait `wait_outcome_required`, `branch_not_allowed`, `wait_outcome_taken`;
 * otherwise `branch_not_allowed`, `single_outgoing`; last `cycle`.
 * @returns the first broken rule, or null.
 */
export function newEdgeBreak(
  steps: readonly RuleStep[],
  edges: readonly RuleEdge[],
  edge: { from: RuleStep; to: RuleStep; branch: string | null; waitOutcome: string | null },
): RuleBreak | null {
  const { from, to, branch, waitOutcome } = edge;
  const out = edges.filter((t) => t.fromStepId === from.id);
  const nameOf = (id: string) => steps.find((s) => s.id === id)?.name ?? id;
  const at = { stepId: from.id };
  if (from.id === to.id)
    return { field: 'toStepId', code: 'self_link', message: `${quoted(from)} cannot lead to itself`, ...at };
  if (to.type === 'TRIGGER')
    return {
      field: 'toStepId',
      code: 'trigger_incoming',
      message: `No transition may lead into the TRIGGER step ("${to.name}")`,
      stepId: to.id,
    };
  if (from.type === 'EXIT')
    return {
      field: 'fromStepId',
      code: 'exit_outgoing',
      message: `${quoted(from)} is an EXIT step: it has no outgoing transition`,
      ...at,
    };
  const keys = branchKeysOf(from);
  if (keys) {
    const list = keys.join(', ');
    if (!branch)
      return {
        field: 'branch',
        code: 'branch_required',
        message: `${quoted(from)} is a ${from.type} step: a transition from it needs a branch (${list})`,
        ...at,
      };
    if (!keys.includes(branch))
      return {
        field: 'branch',
        code: 'branch_unknown',
        message: `${quoted(from)} has no branch ${branch}; its branches are ${list}`,
        branch,
        ...at,
      };
    if (waitOutcome)
      return {
        field: 'waitOutcome',
        code: 'branch_not_allowed',
        message: 'waitOutcome applies to WAIT_FOR_EVENT steps only',
        ...at,
      };
    const taken = out.find((t) => t.branch === branch);
    if (taken)
      return {
        field: 'branch',
        code: 'branch_taken',
        message: `The "${branch}" branch of step "${from.name}" already leads to "${nameOf(taken.toStepId)}"`,
        transitionId: taken.id,
        branch,
        ...at,
      };
  } else if (from.type === 'WAIT_FOR_EVENT') {
    if (!waitOutcome)
      return {
        field: 'waitOutcome',
        code: 'wait_outcome_required',
        message: `${quoted(from)} waits for an event: a transition from it needs waitOutcome EVENT or TIMEOUT`,
        ...at,
      };
    if (branch) return { field: 'branch', code: 'branch_not_allowed', message: BRANCH_STEPS_ONLY, ...at };
    const taken = out.find((t) => t.waitOutcome === waitOutcome);
    if (taken)
      return {
        field: 'waitOutcome',
        code: 'wait_outcome_taken',
        message: `The ${waitOutcome} outcome of step "${from.name}" already leads to "${nameOf(taken.toStepId)}"`,
        transitionId: taken.id,
        ...at,
      };
  } else {
    if (branch) return { field: 'branch', code: 'branch_not_allowed', message: BRANCH_STEPS_ONLY, ...at };
    if (waitOutcome)
      return {
        field: 'waitOutcome',
        code: 'branch_not_allowed',
        message: 'waitOutcome applies to WAIT_FOR_EVENT steps only',
        ...at,
      };
    if (out.length)
      return {
        field: 'fromStepId',
        code: 'single_outgoing',
        message: `${quoted(from)} already leads to "${nameOf(out[0].toStepId)}": a ${from.type} step has one outgoing transition`,
        transitionId: out[0].id,
        ...at,
      };
  }
  const cycle = pathBetween(edges, to.id, from.id);
  if (cycle)
    return {
      field: 'toStepId',
      code: 'cycle',
      message: `A transition from "${from.name}" to "${to.name}" would close a cycle`,
      stepId: to.id,
      path: cycle,
    };
  return null;
}

const BRANCH_STEPS_ONLY = 'branch applies to CONDITION, SPLIT and SWITCH steps only';

/** The step ids of a path from `start` to `target` along `edges` (both ends included), or null when there is none. */
function pathBetween(edges: readonly RuleEdge[], start: string, target: string): string[] | null {
  const next = new Map<string, string[]>();
  for (const t of edges) next.set(t.fromStepId, [...(next.get(t.fromStepId) ?? []), t.toStepId]);
  const cameFrom = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const s = queue.shift()!;
    if (s === target) {
      const path = [s];
      for (let p = cameFrom.get(s); p; p = cameFrom.get(p)) path.unshift(p);
      return path;
    }
    for (const n of next.get(s) ?? []) {
      if (!cameFrom.has(n)) {
        cameFrom.set(n, s);
        queue.push(n);
      }
    }
  }
  return null;
}

/**
 * Whether a new config of a step with branches keeps an edge on a branch it no longer has (a SPLIT
 * or SWITCH branch removed or renamed while connected): `branch_connected`, naming the step, the
 * branch and the edge. Remove the edge first, then the branch.
 */
export function configChangeBreak(
  step: RuleStep,
  newConfig: Record<string, unknown>,
  edges: readonly RuleEdge[],
): RuleBreak | null {
  const keys = branchKeysOf({ type: step.type, config: newConfig });
  if (!keys) return null;
  const orphan = edges.find((t) => t.fromStepId === step.id && t.branch !== null && !keys.includes(t.branch));
  if (!orphan) return null;
  return {
    field: 'config.branches',
    code: 'branch_connected',
    message: `${quoted(step)} has an edge for branch ${orphan.branch}, which this change removes; remove that edge first`,
    stepId: step.id,
    transitionId: orphan.id,
    branch: orphan.branch!,
  };
}

/**
 * What keeps a graph from running: each SPLIT or SWITCH outlet without an edge (`branch_unconnected`,
 * e.g. `Step "Split 1" has no edge for branch B`), in step order. An execution sent down such a
 * branch would end there without a word, so a workflow with one is neither enabled nor started by
 * hand (lead a branch that should end to an EXIT step).
 */
export function graphProblems(steps: readonly RuleStep[], edges: readonly RuleEdge[]): RuleBreak[] {
  const problems: RuleBreak[] = [];
  for (const s of steps) {
    if (s.type !== 'SPLIT' && s.type !== 'SWITCH') continue;
    for (const key of branchKeysOf(s) ?? []) {
      if (edges.some((t) => t.fromStepId === s.id && t.branch === key)) continue;
      problems.push({
        field: 'transitions',
        code: 'branch_unconnected',
        message: `${quoted(s)} has no edge for branch ${key}`,
        stepId: s.id,
        branch: key,
      });
    }
  }
  return problems;
}

/**
 * A broken rule as the API's 422: `errors[0]` with the field, code and sentence; `details` with the
 * `rule` (its code) and where it breaks (`stepId`, `transitionId`, `path`, `branch`), so an editor
 * can mark it. With several (graph problems), every one is an entry of `errors` and of `details.problems`.
 */
export function ruleError(breaks: RuleBreak | RuleBreak[], field?: string): AppError {
  const list = Array.isArray(breaks) ? breaks : [breaks];
  const [first] = list;
  const where = ({ field: _f, code, message: _m, ...at }: RuleBreak) => ({ rule: code, ...at });
  return new AppError(
    'VALIDATION_ERROR',
    list.length === 1 ? first.message : `${first.message} (and ${list.length - 1} more)`,
    {
      errors: list.map((b) => ({ field: field ?? b.field, message: b.message, code: b.code })),
      details: { ...where(first), ...(list.length > 1 ? { problems: list.map(where) } : {}) },
    },
  );
}
