import { and, asc, eq, sql } from 'drizzle-orm';
import { workflowExecutions, workflowStepExecutions } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, notFound } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import { removeJobs } from '../worker/graphile.js';
import { delayKey, startExecution, waitKey } from './engine.js';
import * as repo from './workflows.repo.js';
import { loadWorkflow } from './workflows.service.js';

/** Executions of a workflow: manual start, list, detail, cancel. */

/**
 * `POST /workflows/:id/executions {contactId, context?}` → 201 the execution.
 * @throws AppError 404 workflow or contact (unknown, not a uuid, another project's); 409 CONFLICT when
 *   allowReentry forbids it (false: the contact already entered once; true: one is running or waiting).
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
