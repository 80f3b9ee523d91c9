import { sql, type SQL } from 'drizzle-orm';
import { executePrepared } from '../db/prepared.js';
import { sqlUuidV7 } from '../db/uuid-sql.js';
import { addJobsSelect, jobSpecRow } from '../worker/graphile.js';
import type { Tx } from '../db/tx.js';
import { workflowStepJob } from './workflows.jobs.js';

/** What {@link startBatch} starts, for whom. */
export interface BatchStart {
  workflowId: string;
  projectId: string;
  allowReentry: boolean;
  /**
   * The contacts, as a SELECT of one column `id` (contacts of `projectId`, at most a batch of them: the
   * statement holds each one's live-execution index entry until the transaction ends).
   */
  contacts: SQL;
  /** The executions' `trigger_data` (e.g. the schedule tick). */
  triggerData: Record<string, unknown>;
  now: Date;
}

/** What {@link startBatch} did: contacts read, executions started, and the greatest contact id read. */
export interface BatchStarted {
  contacts: number;
  started: number;
  lastContactId: string | null;
}

/**
 * Starts workflow `workflowId` for every contact of `contacts` in ONE statement, the set-based twin of
 * engine.ts `startExecution` (same rows: the TRIGGER step recorded COMPLETED, the execution RUNNING at
 * the step after it with its `workflows:step` job queued, or COMPLETED when nothing follows) and the
 * same allowReentry rules: false, a contact who ever entered is left out; true, one with a RUNNING or
 * WAITING execution is (the partial unique index settles races). The jobs are added with one
 * `add_jobs` call. No trigger event: `trigger_event_id` stays null.
 */
export async function startBatch(tx: Tx, b: BatchStart): Promise<BatchStarted> {
  const now = b.now.toISOString();
  const r = await executePrepared<{ contacts: number; started: number; last: string | null }>(
    tx,
    sql`
    with batch as materialized (${b.contacts}),
    trig as (
      select s.id from workflow_steps s where s.workflow_id = ${b.workflowId} and s.type = 'TRIGGER' limit 1),
    nxt as (
      select t.to_step_id from workflow_transitions t
      where t.from_step_id = (select id from trig) and t.branch is null and t.wait_outcome is null order by t.id limit 1),
    ins as (
      insert into workflow_executions as x (id, workflow_id, project_id, contact_id, status, current_step_id, context,
        trigger_event_id, trigger_data, causation_depth, created_at, updated_at, completed_at)
      select ${sqlUuidV7(b.now.getTime())}, ${b.workflowId}, ${b.projectId}, bt.id,
        case when exists (select 1 from nxt) then 'RUNNING' else 'COMPLETED' end,
        coalesce((select to_step_id from nxt), (select id from trig)), '{}'::jsonb, null,
        ${JSON.stringify(b.triggerData)}::jsonb, 0, ${now}::timestamptz, ${now}::timestamptz,
        case when exists (select 1 from nxt) then null else ${now}::timestamptz end
      from batch bt
      where ${b.allowReentry} or not exists (select 1 from workflow_executions p
        where p.contact_id = bt.id and p.workflow_id = ${b.workflowId})
      -- In id order, so that two statements over overlapping contacts take the index's locks alike.
      order by bt.id
      on conflict (workflow_id, contact_id) where status in ('RUNNING', 'WAITING') do nothing
      returning x.id, x.status, x.current_step_id),
    trig_done as (
      insert into workflow_step_executions (id, execution_id, step_id, status, attempts, started_at, completed_at, created_at)
      select ${sqlUuidV7(b.now.getTime())}, ins.id, trig.id, 'COMPLETED', 1, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      from ins, trig),
    jobs as (${addJobsSelect(
      sql`select ${jobSpecRow(workflowStepJob, sql`json_build_object('executionId', ins.id, 'stepId', ins.current_step_id)`)}
        from ins where ins.status = 'RUNNING'`,
    )})
    select (select count(*) from batch)::int as contacts, (select count(*) from ins)::int as started,
      (select id::text from batch order by id desc limit 1) as last, (select count(*) from jobs)::int as jobs`,
  );
  const row = r.rows[0];
  return { contacts: row.contacts, started: row.started, lastContactId: row.last };
}
