import { and, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { workflows, workflowSteps, workflowTransitions } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, invalid, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { keyring, resealAll, secretPlaces, type ResealCount } from '../lib/secret-places.js';
import { resealed } from '../lib/secrets.js';
import { configChangeBreak, newEdgeBreak, ruleError } from './graph.rules.js';
import { assertMayChangeConfig, openStepConfig, sealStepConfig, stepForViewer, type Viewer } from './step-secrets.js';
import { validateStepConfig, type StepConfigType } from './steps.config.js';
import * as repo from './workflows.repo.js';
import type { createStepBody, createTransitionBody, updateStepBody } from './workflows.schema.js';
import { loadWorkflow } from './workflows.service.js';
import type { Tx } from '../db/tx.js';

/**
 * Steps and transitions of a workflow. The graph rules are graph.rules.ts's (no cycles, one edge per
 * outlet: CONDITION yes|no, WAIT_FOR_EVENT EVENT|TIMEOUT, SPLIT and SWITCH their branch keys, every
 * other step one); this module applies them to each edit. Edits lock the workflow row, so two
 * concurrent edits cannot together break a rule.
 */

const rule = (field: string, code: string, message: string) => invalid(field, message, code);

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
 * @throws AppError 404; 403 FORBIDDEN; 422 config; 422 `branch_connected` when a SPLIT or SWITCH
 *   config drops a branch an edge still leaves by (graph.rules.ts `configChangeBreak`).
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
  await deps.db.transaction(async (tx) => {
    // Locked like every graph edit: a branch dropped here cannot race an edge added on it.
    await loadWorkflow(deps, projectId, w.id, tx, true);
    if (config !== s.config) {
      const broken = configChangeBreak(s, config, await repo.listTransitions(tx, w.id));
      if (broken) throw ruleError(broken);
    }
    await tx
      .update(workflowSteps)
      .set({ name: body.name ?? s.name, config, templateId, updatedAt: now })
      .where(eq(workflowSteps.id, s.id));
  });
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
      throw ruleError({
        field: 'stepId',
        code: 'trigger_step',
        message: `Step "${s.name}" is the TRIGGER step: it cannot be deleted`,
        stepId: s.id,
      });
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
 * @throws AppError 404 (workflow, or a step not of this workflow); 422 naming the broken rule
 *   (graph.rules.ts `newEdgeBreak`: `self_link`, `trigger_incoming`, `exit_outgoing`,
 *   `branch_required`, `branch_unknown`, `branch_taken`, `wait_outcome_required`, `wait_outcome_taken`,
 *   `branch_not_allowed`, `single_outgoing`, `cycle`); its `details` say where (`ruleError`).
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
    const branch = body.branch ?? null;
    const waitOutcome = body.waitOutcome ?? null;

    const broken = newEdgeBreak(steps, all, { from, to, branch, waitOutcome });
    if (broken) throw ruleError(broken);

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
