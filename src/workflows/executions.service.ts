import { and, asc, eq, sql } from 'drizzle-orm';
import { workflowExecutions, workflowStepExecutions } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, notFound } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import { removeJobs } from '../worker/graphile.js';
import { delayKey, startExecution, waitKey } from './engine.js';
import * as repo from './workflows.repo.js';
import { assertRunnable, loadWorkflow } from './workflows.service.js';
import { uuidArray } from '../db/prepared.js';

/** Executions of a workflow: manual start, list, detail, cancel. */

/**
 * `POST /workflows/:id/executions {contactId, context?}` → 201 the execution.
 * Like an event's start (engine.ts `startExecution`, the allowReentry rules), whether the workflow
 * is enabled or not (a disabled workflow can be tried on a few contacts before it is switched on).
 * @throws AppError 404 workflow or contact (unknown, not a uuid, another project's); 409 CONFLICT when
 *   allowReentry forbids it (false: the contact already entered once; true: one is running or waiting);
 *   422 when a SPLIT or SWITCH branch leads nowhere (workflows.service.ts `assertRunnable`).
 */
export async function startManual(
  deps: Deps,
  projectId: string,
  workflowId: string,
  contactId: string,
  context: Record<string, unknown>,
) {
  const w = await loadWorkflow(deps, projectId, workflowId);
  if (!isUuid(contactId)) throw notFound('Contact');
  await assertRunnable(deps.db, w.id, 'contactId');
  const found = await deps.db.execute(
    sql`select 1 from contacts where id = ${contactId} and project_id = ${projectId}`,
  );
  if (!found.rows.length) throw notFound('Contact');
  const started = await startExecution(deps.db, {
    workflowId: w.id,
    projectId,
    contactId,
    allowReentry: w.allowReentry,
    context,
    now: deps.clock.now(),
  });
  if (!started) {
    throw new AppError(
      'CONFLICT',
      w.allowReentry
        ? 'The contact has a running or waiting execution of this workflow'
        : 'The contact already entered this workflow, and allowReentry is false',
      { details: { contactId, allowReentry: w.allowReentry } },
    );
  }
  return getExecution(deps, projectId, w.id, started.id);
}

/**
 * `POST /workflows/:id/executions {contactIds, context?}` → 201 `{data, skipped}`: an execution for
 * each listed contact (duplicates count once), in one transaction, each started the way
 * {@link startManual} starts one (its first step's job queued). Contacts the allowReentry rules keep
 * out are `skipped` with the reason, not an error: a list may well hold some who already went through.
 * @throws AppError 404 workflow; 422 VALIDATION_ERROR naming every id that is no contact of the project
 *   (`errors[].field` `contactIds.<index>`, code `contact_not_found`; `details.unknownContactIds`),
 *   then nothing starts: another project's contact reads as unknown, never started; 422 when a SPLIT or
 *   SWITCH branch leads nowhere.
 */
export async function startManualMany(
  deps: Deps,
  projectId: string,
  workflowId: string,
  contactIds: string[],
  context: Record<string, unknown>,
) {
  const w = await loadWorkflow(deps, projectId, workflowId);
  await assertRunnable(deps.db, w.id, 'contactIds');
  const ids = [...new Set(contactIds.map((id) => id.toLowerCase()))];
  const uuids = ids.filter(isUuid);
  const found = new Set(
    uuids.length
      ? (
          await deps.db.execute<{ id: string }>(
            sql`select id from contacts where project_id = ${projectId} and id = any(${uuidArray(uuids)})`,
          )
        ).rows.map((r) => r.id)
      : [],
  );
  const unknown = ids.filter((id) => !found.has(id));
  if (unknown.length) {
    const at = (id: string) => contactIds.findIndex((c) => c.toLowerCase() === id);
    throw new AppError(
      'VALIDATION_ERROR',
      unknown.length === 1
        ? `No contact ${unknown[0]} in this project; nothing was started`
        : `${unknown.length} of the ids are no contacts of this project; nothing was started`,
      {
        errors: unknown.map((id) => ({
          field: `contactIds.${at(id)}`,
          message: `No contact ${id} in this project`,
          code: 'contact_not_found',
        })),
        details: { unknownContactIds: unknown },
      },
    );
  }
  const now = deps.clock.now();
  const { started, skipped } = await deps.db.transaction(async (tx) => {
    const byContact = new Map<string, string | null>();
    // In id order, so that two starts of overlapping lists take the live-execution index's locks in
    // the same order and cannot deadlock; the answer keeps the order of the request.
    for (const contactId of [...ids].sort()) {
      const s = await startExecution(tx, {
        workflowId: w.id,
        projectId,
        contactId,
        allowReentry: w.allowReentry,
        context,
        now,
      });
      byContact.set(contactId, s?.id ?? null);
    }
    const reason = w.allowReentry ? ('already_running' as const) : ('already_entered' as const);
    return {
      started: ids.flatMap((c) => (byContact.get(c) ? [byContact.get(c)!] : [])),
      skipped: ids.filter((c) => !byContact.get(c)).map((contactId) => ({ contactId, reason })),
    };
  });
  const rows = started.length
    ? await deps.db
        .select()
        .from(workflowExecutions)
        .where(sql`${workflowExecutions.id} = any(${uuidArray(started)})`)
    : [];
  const byId = new Map(rows.map((e) => [e.id, e]));
  const emails = await repo.contactEmails(
    deps.db,
    projectId,
    rows.map((e) => e.contactId),
  );
  return { data: started.map((id) => repo.executionOut(byId.get(id)!, emails)), skipped };
}

/** `GET /workflows/:id/executions?status=`: cursor list, newest first (`{data, cursor, hasMore, total}`). */
export async function listExecutions(
  deps: Deps,
  projectId: string,
  workflowId: string,
  q: { status?: string; limit: number; cursor?: string },
) {
  const w = await loadWorkflow(deps, projectId, workflowId);
  if (q.cursor !== undefined && !isUuid(q.cursor)) throw new AppError('BAD_REQUEST', 'Invalid cursor');
  const where = and(
    eq(workflowExecutions.workflowId, w.id),
    q.status ? eq(workflowExecutions.status, q.status as repo.ExecutionRow['status']) : undefined,
  );
  const rows = await deps.db
    .select()
    .from(workflowExecutions)
    .where(and(where, q.cursor ? sql`${workflowExecutions.id} < ${q.cursor}::uuid` : undefined))
    .orderBy(sql`${workflowExecutions.id} desc`)
    .limit(q.limit + 1);
  const hasMore = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const total = q.cursor
    ? 0
    : (
        await deps.db
          .select({ n: sql<number>`count(*)::int` })
          .from(workflowExecutions)
          .where(where)
      )[0].n;
  const emails = await repo.contactEmails(
    deps.db,
    projectId,
    page.map((e) => e.contactId),
  );
  return {
    data: page.map((e) => repo.executionOut(e, emails)),
    cursor: hasMore ? page[page.length - 1].id : null,
    hasMore,
    total,
  };
}

async function loadExecution(deps: Deps, workflowId: string, executionId: string) {
  if (!isUuid(executionId)) throw notFound('Execution');
  const [e] = await deps.db
    .select()
    .from(workflowExecutions)
    .where(and(eq(workflowExecutions.workflowId, workflowId), eq(workflowExecutions.id, executionId)))
    .limit(1);
  if (!e) throw notFound('Execution');
  return e;
}

/** `GET /workflows/:id/executions/:executionId`: the execution with its step history (oldest first). */
export async function getExecution(deps: Deps, projectId: string, workflowId: string, executionId: string) {
  const w = await loadWorkflow(deps, projectId, workflowId);
  const e = await loadExecution(deps, w.id, executionId);
  const steps = await deps.db
    .select()
    .from(workflowStepExecutions)
    .where(eq(workflowStepExecutions.executionId, e.id))
    .orderBy(asc(workflowStepExecutions.id));
  const emails = await repo.contactEmails(deps.db, projectId, [e.contactId]);
  return { ...repo.executionOut(e, emails), steps: steps.map(repo.stepExecutionOut) };
}

/**
 * Cancels RUNNING or WAITING executions matched by `filter` and removes their pending delay and
 * wait jobs by key; queued step jobs find the execution CANCELLED and do nothing. @returns their number.
 */
async function cancelWhere(deps: Deps, filter: ReturnType<typeof sql>): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now().toISOString();
    const r = await tx.execute<{ id: string }>(sql`
      update workflow_executions set status = 'CANCELLED', exit_reason = 'Cancelled', completed_at = ${now}::timestamptz,
        updated_at = ${now}::timestamptz
      where ${filter} and status in ${repo.LIVE} returning id`);
    const ids = r.rows.map((x) => x.id);
    if (!ids.length) return 0;
    const keys = ids.flatMap((id) => [delayKey(id), waitKey(id)]);
    await tx.execute(sql`update workflow_step_executions set status = 'CANCELLED', completed_at = ${now}::timestamptz
      where execution_id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid) and status in ('RUNNING', 'WAITING')`);
    await removeJobs(tx, keys);
    return ids.length;
  });
}

/** `DELETE /workflows/:id/executions/:executionId`. @throws AppError 404; 409 when it already ended. */
export async function cancelExecution(
  deps: Deps,
  projectId: string,
  workflowId: string,
  executionId: string,
): Promise<void> {
  const w = await loadWorkflow(deps, projectId, workflowId);
  const e = await loadExecution(deps, w.id, executionId);
  const n = await cancelWhere(deps, sql`id = ${e.id}`);
  if (!n)
    throw new AppError(
      'CONFLICT',
      `The execution is ${e.status === 'RUNNING' || e.status === 'WAITING' ? 'no longer running' : e.status}; only running or waiting executions can be cancelled`,
    );
}

/** `POST /workflows/:id/executions/cancel-all` → `{cancelled}`. */
export async function cancelAll(deps: Deps, projectId: string, workflowId: string) {
  const w = await loadWorkflow(deps, projectId, workflowId);
  return { cancelled: await cancelWhere(deps, sql`workflow_id = ${w.id}`) };
}
