import { and, desc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { workflows, workflowSteps } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { keyring } from '../lib/secret-places.js';
import { stepForViewer, type Viewer } from './step-secrets.js';
import * as repo from './workflows.repo.js';
import { CONDITION_STEP_OPERATORS } from '../segments/operators.js';
import type { createWorkflowBody, updateWorkflowBody } from './workflows.schema.js';
import { triggerEventName } from './listeners.js';
import { graphProblems, ruleError } from './graph.rules.js';
import type { Tx } from '../db/tx.js';
import { timeZoneOf } from '../projects/projects.repo.js';
import { assertCron, CONFIG_FIELDS, resolveTrigger, sameTrigger, scheduleView, type ScheduleView } from './triggers.js';
import { nextTick, normaliseCron } from './schedule.js';

/** Workflow definitions. */

/** Loads a workflow of the project. @throws AppError 404 (unknown, not a uuid, another project's). */
export async function loadWorkflow(deps: Deps | { db: Tx }, projectId: string, id: string, tx?: Tx, lock = false) {
  if (!isUuid(id)) throw notFound('Workflow');
  const w = await repo.getWorkflow(tx ?? deps.db, projectId, id, lock);
  if (!w) throw notFound('Workflow');
  return w;
}

/**
 * Refuses to run a workflow whose graph cannot run as drawn (graph.rules.ts `graphProblems`: a SPLIT or
 * SWITCH branch without an edge), before it is enabled or started by hand.
 * @throws AppError 422 VALIDATION_ERROR, one field error per problem under `field`, `details.rule`
 *   `branch_unconnected` with the step and branch (and `details.problems` when there are several).
 */
export async function assertRunnable(db: Tx, workflowId: string, field: string): Promise<void> {
  const steps = await repo.listSteps(db, workflowId);
  const problems = graphProblems(steps, await repo.listTransitions(db, workflowId));
  if (problems.length) throw ruleError(problems, field);
}

/** `GET /workflows`: offset page, newest first, with step and live-execution counts. */
export async function listWorkflows(deps: Deps, projectId: string, page: number, pageSize: number) {
  const rows = await deps.db.execute<{
    id: string;
    total: number;
    step_count: number;
    live: number;
    executions: number;
  }>(sql`
    select w.id, count(*) over ()::int as total,
      (select count(*)::int from workflow_steps s where s.workflow_id = w.id) as step_count,
      (select count(*)::int from workflow_executions e where e.workflow_id = w.id and e.status in ${repo.LIVE}) as live,
      (select count(*)::int from workflow_executions e where e.workflow_id = w.id) as executions
    from workflows w where w.project_id = ${projectId}
    order by w.id desc limit ${pageSize} offset ${(page - 1) * pageSize}`);
  const ids = rows.rows.map((r) => r.id);
  const full = ids.length
    ? await deps.db
        .select()
        .from(workflows)
        .where(
          and(
            eq(workflows.projectId, projectId),
            sql`${workflows.id} in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`,
          ),
        )
        .orderBy(desc(workflows.id))
    : [];
  const extra = new Map(rows.rows.map((r) => [r.id, r]));
  let total = rows.rows[0]?.total;
  if (total === undefined) {
    total = (
      await deps.db.execute<{ n: number }>(
        sql`select count(*)::int as n from workflows where project_id = ${projectId}`,
      )
    ).rows[0].n;
  }
  return {
    data: full.map((w) => ({
      ...repo.workflowOut(w),
      stepCount: extra.get(w.id)!.step_count,
      activeExecutions: extra.get(w.id)!.live,
      totalExecutions: extra.get(w.id)!.executions,
    })),
    page,
    pageSize,
    total,
    totalPages: Math.ceil(total / pageSize),
  };
}

/**
 * `GET /workflows/:id`: the workflow with its `schedule` (SCHEDULE triggers, in the project's time
 * zone), `steps` (secrets masked for a MEMBER `viewer`, step-secrets.ts) and `transitions`.
 */
export async function getWorkflowFull(deps: Deps, projectId: string, id: string, viewer: Viewer) {
  const w = await loadWorkflow(deps, projectId, id);
  const [steps, transitions] = await Promise.all([repo.listSteps(deps.db, w.id), repo.listTransitions(deps.db, w.id)]);
  let schedule: ScheduleView | null = null;
  if (w.triggerType === 'SCHEDULE' && w.triggerConfig.cron)
    schedule = scheduleView(w.triggerConfig.cron, await timeZoneOf(deps.db, projectId), deps.clock.now());
  return {
    ...repo.workflowOut(w),
    schedule,
    steps: steps.map((s) => stepForViewer(repo.stepOut(s), viewer, keyring(deps))),
    transitions: transitions.map(repo.transitionOut),
  };
}

/**
 * `POST /workflows`: disabled, with its TRIGGER step (config: the trigger's). The trigger is EVENT
 * with `eventName` unless `triggerType` says otherwise (triggers.ts says what each type needs).
 * @throws AppError 422 as triggers.ts `resolveTrigger` (an EVENT trigger's missing name at `eventName`).
 */
export async function createWorkflow(
  deps: Deps,
  projectId: string,
  body: z.output<typeof createWorkflowBody>,
  viewer: Viewer,
) {
  const now = deps.clock.now();
  const id = newId();
  const triggerConfig = await resolveTrigger(
    deps.db,
    projectId,
    {
      type: body.triggerType,
      config: { ...body.triggerConfig, eventName: body.triggerConfig?.eventName ?? body.eventName },
    },
    { ...CONFIG_FIELDS, eventName: body.triggerConfig ? CONFIG_FIELDS.eventName : 'eventName' },
  );
  await deps.db.transaction(async (tx) => {
    await tx.insert(workflows).values({
      id,
      projectId,
      name: body.name,
      description: body.description ?? null,
      triggerType: body.triggerType,
      triggerConfig,
      enabled: false,
      allowReentry: body.allowReentry,
      createdAt: now,
      updatedAt: now,
    });
    await tx.insert(workflowSteps).values({
      id: newId(),
      workflowId: id,
      projectId,
      type: 'TRIGGER',
      name: 'Trigger',
      config: { ...triggerConfig },
      createdAt: now,
      updatedAt: now,
    });
  });
  return getWorkflowFull(deps, projectId, id, viewer);
}

/**
 * `PATCH /workflows/:id`. A change of the trigger (type or config) is refused while executions
 * are RUNNING or WAITING, so that live executions keep the definition they started with. A trigger
 * given is checked whole (triggers.ts `resolveTrigger`): `triggerConfig` replaces the old one, a
 * `triggerType` alone keeps it. Enabling the workflow or changing its trigger sets `trigger_since`:
 * a schedule fires no tick from before (schedule.run.ts).
 * @throws AppError 404; 409 CONFLICT (trigger change with live executions); 422 a trigger that
 *   `resolveTrigger` refuses; 422 `branch_unconnected` on `enabled: true` with a SPLIT or SWITCH branch
 *   that leads nowhere ({@link assertRunnable}).
 */
export async function updateWorkflow(
  deps: Deps,
  projectId: string,
  id: string,
  body: z.output<typeof updateWorkflowBody>,
  viewer: Viewer,
) {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const w = await loadWorkflow(deps, projectId, id, tx, true);
    const triggerType = body.triggerType ?? w.triggerType;
    // An untouched trigger is not checked again: a rename must not fail on a segment changed since.
    const triggerConfig =
      body.triggerType === undefined && body.triggerConfig === undefined
        ? w.triggerConfig
        : await resolveTrigger(tx, projectId, { type: triggerType, config: body.triggerConfig ?? w.triggerConfig });
    const triggerChanged = !sameTrigger(
      { type: triggerType, config: triggerConfig },
      { type: w.triggerType, config: w.triggerConfig },
    );
    if (triggerChanged && (await repo.countLive(tx, w.id)) > 0) {
      throw new AppError(
        'CONFLICT',
        'The trigger cannot change while executions are running or waiting; cancel them first',
        {
          suggestion: 'POST /workflows/:id/executions/cancel-all, or wait until they finish.',
        },
      );
    }
    if (body.enabled === true) await assertRunnable(tx, w.id, 'enabled');
    const enabling = body.enabled === true && !w.enabled;
    await tx
      .update(workflows)
      .set({
        name: body.name ?? w.name,
        description: body.description === undefined ? w.description : body.description,
        triggerType,
        triggerConfig,
        enabled: body.enabled ?? w.enabled,
        allowReentry: body.allowReentry ?? w.allowReentry,
        triggerSince: triggerChanged || enabling ? now : w.triggerSince,
        updatedAt: now,
      })
      .where(eq(workflows.id, w.id));
    if (triggerChanged) {
      await tx
        .update(workflowSteps)
        .set({ config: { ...triggerConfig }, updatedAt: now })
        .where(and(eq(workflowSteps.workflowId, w.id), eq(workflowSteps.type, 'TRIGGER')));
    }
  });
  return getWorkflowFull(deps, projectId, id, viewer);
}

/** `DELETE /workflows/:id`. @throws AppError 404; 409 while executions are RUNNING or WAITING. */
export async function deleteWorkflow(deps: Deps, projectId: string, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const w = await loadWorkflow(deps, projectId, id, tx, true);
    const live = await repo.countLive(tx, w.id);
    if (live > 0) {
      throw new AppError(
        'CONFLICT',
        `The workflow has ${live} running or waiting executions; cancel them or let them finish first`,
        {
          details: { activeExecutions: live },
          suggestion: 'POST /workflows/:id/executions/cancel-all',
        },
      );
    }
    await tx.delete(workflows).where(eq(workflows.id, w.id));
  });
}

/**
 * `GET /workflows/fields`: what a CONDITION step can test. Contact columns, the data keys of the
 * project's contacts, `event.data.<key>` of the events that trigger the project's workflows (from
 * the latest 1,000 of them), and `context.<key>` of recent executions; `events` lists the project's
 * event names (for triggers and WAIT_FOR_EVENT).
 */
export async function workflowFields(deps: Deps, projectId: string) {
  const r = await deps.db.execute<{ field: string; type: string; source: string }>(sql`
    with data_keys as (
      select k.key, jsonb_typeof(k.value) as t from contacts c, jsonb_each(c.data) k where c.project_id = ${projectId}
    ), trigger_events as (
      select e.data from events e
      where e.project_id = ${projectId} and e.name in (select ${triggerEventName('w')} from workflows w where w.project_id = ${projectId})
      order by e.created_at desc limit 1000
    ), ctx as (
      select context from workflow_executions where project_id = ${projectId} order by id desc limit 1000
    )
    select 'data.' || key as field, mode() within group (order by t) as type, 'contact' as source from data_keys group by key
    union all
    select 'event.data.' || k.key, mode() within group (order by jsonb_typeof(k.value)), 'event' from trigger_events te, jsonb_each(te.data) k group by k.key
    union all
    select 'context.' || k.key, mode() within group (order by jsonb_typeof(k.value)), 'context' from ctx, jsonb_each(ctx.context) k group by k.key
    order by 1`);
  const standard = [
    { field: 'email', type: 'string', source: 'contact' },
    { field: 'subscribed', type: 'boolean', source: 'contact' },
    { field: 'createdAt', type: 'date', source: 'contact' },
    { field: 'updatedAt', type: 'date', source: 'contact' },
  ];
  // Event names, for WAIT_FOR_EVENT and trigger pickers (the CONDITION value operators do not apply to them).
  const names = await deps.db.execute<{ name: string }>(
    sql`select name from events where project_id = ${projectId} group by name order by name limit 500`,
  );
  return {
    fields: [...standard, ...r.rows],
    events: names.rows.map((n) => n.name),
    operators: [...CONDITION_STEP_OPERATORS],
  };
}

/**
 * `GET /workflows/schedule-preview?cron=`: what a SCHEDULE trigger with `cron` would do in the
 * project's time zone: its sentence and next 3 ticks, for the editor to show before it is saved.
 * @throws AppError 422 `invalid_cron` at `cron` (triggers.ts `assertCron`).
 */
export async function schedulePreview(deps: Deps, projectId: string, cron: string) {
  assertCron(cron, 'cron');
  const timeZone = await timeZoneOf(deps.db, projectId);
  const view = scheduleView(cron, timeZone, deps.clock.now());
  const nextRuns: string[] = [];
  for (let at = view.nextRunAt ? new Date(view.nextRunAt) : null; at && nextRuns.length < 3;) {
    nextRuns.push(at.toISOString());
    at = nextTick(cron, timeZone, at);
  }
  return { cron: normaliseCron(cron), ...view, nextRuns };
}
