import { and, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { workflows, workflowSteps, workflowTransitions } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, invalid, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { keyring, resealAll, secretPlaces, type ResealCount } from '../lib/secret-places.js';
import { resealed } from '../lib/secrets.js';
import { assertMayChangeConfig, openStepConfig, sealStepConfig, stepForViewer, type Viewer } from './step-secrets.js';
import { validateStepConfig, type StepConfigType } from './steps.config.js';
import * as repo from './workflows.repo.js';
import type { createStepBody, createTransitionBody, updateStepBody } from './workflows.schema.js';
import { loadWorkflow } from './workflows.service.js';
import type { Tx } from '../db/tx.js';

/**
 * Steps and transitions of a workflow, with the graph rules: no cycles,
 * no self links, EXIT has no outgoing transition, CONDITION one per branch yes|no, WAIT_FOR_EVENT one
 * per waitOutcome EVENT|TIMEOUT, every other step at most one. Edits lock the workflow row, so two
 * concurrent edits cannot together break a rule.
 */

const rule = (field: string, code: string, message: string) => invalid(field, message, code);

/**
 * A broken graph rule with `details` naming where it breaks, so an editor can mark it: `rule` (the
 * code), `stepId` (the step at fault), `transitionId` (the existing transition in the way, for a
 * taken branch or a second outgoing link) and `path` (the step ids of the cycle the new link would
 * close, from its target back to its source).
 */
function graphRule(
  field: string,
  code: string,
  message: string,
  at: { stepId: string; transitionId?: string; path?: string[] },
): AppError {
  return new AppError('VALIDATION_ERROR', message, {
    errors: [{ field, message, code }],
    details: { rule: code, ...at },
  });
}

/** `POST /workflows/:id/steps` → the step (secrets masked for a MEMBER, step-secrets.ts). @throws AppError 404; 422 config (steps.config.ts). */
export async function addStep(
  deps: Deps,
  projectId: string,
  workflowId: string,
  body: z.output<typeof createStepBody>,
  viewer: Viewer,
) {
  const w = await loadWorkflow(deps, projectId, workflowId);
  const { config: clear, templateId } = await validateStepConfig(
    deps,
    projectId,
    body.type,
    body.config,
    body.templateId,
  );
  const config = sealStepConfig(keyring(deps), body.type, clear);
  const now = deps.clock.now();
  const id = newId();
  await deps.db.transaction(async (tx) => {
    await loadWorkflow(deps, projectId, w.id, tx, true);
    await tx.insert(workflowSteps).values({
      id,
      workflowId: w.id,
      projectId,
      type: body.type,
      name: body.name,
      config,
      templateId,
      createdAt: now,
      updatedAt: now,
    });
    await tx.update(workflows).set({ updatedAt: now }).where(eq(workflows.id, w.id));
  });
  return stepForViewer(repo.stepOut((await repo.getStep(deps.db, w.id, id))!), viewer, keyring(deps));
}

/** `config` with sealed header values opened (a config kept from the stored step), for the checks. */
function openForCheck(deps: Deps, type: string, config: Record<string, unknown>): Record<string, unknown> {
  try {
    return openStepConfig(keyring(deps), type, config);
  } catch {
    return config; // kept sealed: the check sees opaque values, the step keeps them
  }
}

async function loadStep(deps: Deps, workflowId: string, stepId: string, tx?: Tx) {
  if (!isUuid(stepId)) throw notFound('Step');
  const s = await repo.getStep(tx ?? deps.db, workflowId, stepId);
  if (!s) throw notFound('Step');
  return s;
}

/**
 * `PATCH /workflows/:id/steps/:stepId`: name and config (checked against the step's type). The
 * TRIGGER step's event is changed with `PATCH /workflows/:id` (trigger rules apply there). A MEMBER
 * may not change the config of a WEBHOOK step with headers (step-secrets.ts).
 * @throws AppError 404; 403 FORBIDDEN; 422 config.
 */
export async function updateStep(
  deps: Deps,
  projectId: string,
  workflowId: string,
  stepId: string,
  body: z.output<typeof updateStepBody>,
  viewer: Viewer,
) {
  const w = await loadWorkflow(deps, projectId, workflowId);
  const s = await loadStep(deps, w.id, stepId);
  if (body.config !== undefined) assertMayChangeConfig(s, viewer);
  let config = s.config;
  let templateId = s.templateId;
  if (body.config !== undefined || body.templateId !== undefined) {
    if (s.type === 'TRIGGER')
      throw rule('config', 'trigger_step', 'Change the trigger with PATCH /workflows/:id (triggerConfig)');
    const base =
      body.config ??
      (s.type === 'SEND_EMAIL' && body.templateId ? { ...s.config, templateId: body.templateId } : s.config);
    // Validated in clear (a MEMBER never gets here with stored headers, step-secrets.ts), stored sealed.
    const checked = await validateStepConfig(
      deps,
      projectId,
      s.type as StepConfigType,
      openForCheck(deps, s.type, base),
      body.templateId,
    );
    ({ templateId } = checked);
    config = sealStepConfig(keyring(deps), s.type, checked.config);
  }
  const now = deps.clock.now();
  await deps.db
    .update(workflowSteps)
    .set({ name: body.name ?? s.name, config, templateId, updatedAt: now })
    .where(eq(workflowSteps.id, s.id));
  return stepForViewer(repo.stepOut((await repo.getStep(deps.db, w.id, s.id))!), viewer, keyring(deps));
}

/**
 * `DELETE /workflows/:id/steps/:stepId?splice=true`. With `splice`, when the step has exactly one
 * outgoing transition, every incoming transition is redirected to that successor (keeping its own
 * branch / waitOutcome, so the predecessors' rules still hold and no cycle can appear); otherwise
 * the step's transitions go with it.
 * @throws AppError 404; 422 `trigger_step` (the TRIGGER step stays); 409 while an execution stands at the step.
 */
export async function deleteStep(
  deps: Deps,
  projectId: string,
  workflowId: string,
  stepId: string,
  splice: boolean,
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const w = await loadWorkflow(deps, projectId, workflowId, tx, true);
    const s = await loadStep(deps, w.id, stepId, tx);
    if (s.type === 'TRIGGER')
      throw graphRule('stepId', 'trigger_step', 'The TRIGGER step cannot be deleted', { stepId: s.id });
    if ((await repo.countLive(tx, w.id, s.id)) > 0) {
      throw new AppError(
        'CONFLICT',
        'Executions are running or waiting at this step; cancel them or let them move on first',
      );
    }
    if (splice) {
      const all = await repo.listTransitions(tx, w.id);
      const out = all.filter((t) => t.fromStepId === s.id);
      const incoming = all.filter((t) => t.toStepId === s.id);
      if (out.length === 1 && out[0].toStepId !== s.id) {
        for (const t of incoming) {
          await tx
            .update(workflowTransitions)
            .set({ toStepId: out[0].toStepId })
            .where(eq(workflowTransitions.id, t.id));
        }
      }
    }
    await tx.delete(workflowSteps).where(eq(workflowSteps.id, s.id));
    await tx.update(workflows).set({ updatedAt: deps.clock.now() }).where(eq(workflows.id, w.id));
  });
}

/**
 * `POST /workflows/:id/transitions` → the transition.
 * @throws AppError 404 (workflow, or a step not of this workflow); 422 naming the broken rule:
 *   `self_link`, `trigger_incoming`, `exit_outgoing`, `branch_required`, `branch_taken`,
 *   `wait_outcome_required`, `wait_outcome_taken`, `branch_not_allowed`, `single_outgoing`, `cycle`; its
 *   `details` say where ({@link graphRule}).
 */
export async function addTransition(
  deps: Deps,
  projectId: string,
  workflowId: string,
  body: z.output<typeof createTransitionBody>,
) {
  const id = newId();
  await deps.db.transaction(async (tx) => {
    const w = await loadWorkflow(deps, projectId, workflowId, tx, true);
    const steps = await repo.listSteps(tx, w.id);
    const from = steps.find((s) => s.id === body.fromStepId);
    const to = steps.find((s) => s.id === body.toStepId);
    if (!from) throw notFound('Step fromStepId');
    if (!to) throw notFound('Step toStepId');
    const all = await repo.listTransitions(tx, w.id);
    const out = all.filter((t) => t.fromStepId === from.id);
    const branch = body.branch ?? null;
    const waitOutcome = body.waitOutcome ?? null;

    const taken = (pick: (t: repo.TransitionRow) => boolean) => out.find(pick)?.id;
    const atFrom = { stepId: from.id };
    if (from.id === to.id) throw graphRule('toStepId', 'self_link', 'A step cannot lead to itself', atFrom);
    if (to.type === 'TRIGGER')
      throw graphRule('toStepId', 'trigger_incoming', 'No transition may lead into the TRIGGER step', {
        stepId: to.id,
      });
    if (from.type === 'EXIT')
      throw graphRule('fromStepId', 'exit_outgoing', 'An EXIT step has no outgoing transition', atFrom);
    if (from.type === 'CONDITION') {
      if (!branch)
        throw graphRule(
          'branch',
          'branch_required',
          'A transition from a CONDITION step needs branch yes or no',
          atFrom,
        );
      if (waitOutcome)
        throw graphRule(
          'waitOutcome',
          'branch_not_allowed',
          'waitOutcome applies to WAIT_FOR_EVENT steps only',
          atFrom,
        );
      const t = taken((x) => x.branch === branch);
      if (t)
        throw graphRule(
          'branch',
          'branch_taken',
          `The "${branch}" branch of this CONDITION step is already connected`,
          { ...atFrom, transitionId: t },
        );
    } else if (from.type === 'WAIT_FOR_EVENT') {
      if (!waitOutcome)
        throw graphRule(
          'waitOutcome',
          'wait_outcome_required',
          'A transition from a WAIT_FOR_EVENT step needs waitOutcome EVENT or TIMEOUT',
          atFrom,
        );
      if (branch) throw graphRule('branch', 'branch_not_allowed', 'branch applies to CONDITION steps only', atFrom);
      const t = taken((x) => x.waitOutcome === waitOutcome);
      if (t)
        throw graphRule(
          'waitOutcome',
          'wait_outcome_taken',
          `The ${waitOutcome} outcome of this step is already connected`,
          { ...atFrom, transitionId: t },
        );
    } else {
      if (branch) throw graphRule('branch', 'branch_not_allowed', 'branch applies to CONDITION steps only', atFrom);
      if (waitOutcome)
        throw graphRule(
          'waitOutcome',
          'branch_not_allowed',
          'waitOutcome applies to WAIT_FOR_EVENT steps only',
          atFrom,
        );
      if (out.length)
        throw graphRule('fromStepId', 'single_outgoing', `A ${from.type} step has at most one outgoing transition`, {
          ...atFrom,
          transitionId: out[0].id,
        });
    }
    const cycle = pathBetween(all, to.id, from.id);
    if (cycle)
      throw graphRule('toStepId', 'cycle', 'This transition would close a cycle', { stepId: to.id, path: cycle });

    await tx.insert(workflowTransitions).values({
      id,
      workflowId: w.id,
      fromStepId: from.id,
      toStepId: to.id,
      branch,
      waitOutcome,
      createdAt: deps.clock.now(),
    });
    await tx.update(workflows).set({ updatedAt: deps.clock.now() }).where(eq(workflows.id, w.id));
  });
  const [t] = await deps.db.select().from(workflowTransitions).where(eq(workflowTransitions.id, id));
  return repo.transitionOut(t);
}

/** The step ids of a path from `start` to `target` along `transitions` (both ends included), or null when there is none. */
function pathBetween(transitions: repo.TransitionRow[], start: string, target: string): string[] | null {
  const next = new Map<string, string[]>();
  for (const t of transitions) next.set(t.fromStepId, [...(next.get(t.fromStepId) ?? []), t.toStepId]);
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

/** `DELETE /workflows/:id/transitions/:transitionId`. @throws AppError 404. */
export async function deleteTransition(
  deps: Deps,
  projectId: string,
  workflowId: string,
  transitionId: string,
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const w = await loadWorkflow(deps, projectId, workflowId, tx, true);
    if (!isUuid(transitionId)) throw notFound('Transition');
    const [t] = await tx.select().from(workflowTransitions).where(eq(workflowTransitions.id, transitionId));
    if (!t || t.workflowId !== w.id) throw notFound('Transition');
    await tx.delete(workflowTransitions).where(eq(workflowTransitions.id, t.id));
  });
}

/**
 * Start-up step: the header values of every WEBHOOK step sealed with the current key
 * (lib/secret-places.ts `resealAll`); the config is written back only where it is unchanged.
 */
export async function resealStepHeaders(deps: Pick<Deps, 'db' | 'config' | 'secret'>): Promise<ResealCount> {
  const ring = keyring(deps);
  const rows = await deps.db
    .select({ id: workflowSteps.id, config: workflowSteps.config })
    .from(workflowSteps)
    .where(and(eq(workflowSteps.type, 'WEBHOOK'), sql`${workflowSteps.config} ? 'headers'`));
  return resealAll(
    rows,
    (r) => {
      const headers = (r.config as { headers?: Record<string, string> }).headers ?? {};
      let changed = false;
      const next = Object.fromEntries(
        Object.entries(headers).map(([k, v]) => {
          const n = resealed(ring, String(v), secretPlaces.stepHeader(k));
          if (n !== null) changed = true;
          return [k, n ?? v];
        }),
      );
      return changed ? { ...r, config: { ...r.config, headers: next } } : null;
    },
    async (next, old) => {
      await deps.db
        .update(workflowSteps)
        .set({ config: next.config })
        .where(and(eq(workflowSteps.id, old.id), sql`${workflowSteps.config} = ${JSON.stringify(old.config)}::jsonb`));
    },
  );
}
