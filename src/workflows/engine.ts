import { sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { executePrepared } from '../db/prepared.js';
import { newId } from '../lib/ids.js';
import { addJobSql } from '../worker/graphile.js';
import { jobSpec } from '../worker/jobs.js';
import type { ResumeOutcome, StepCtx, StepResult } from './steps.run.js';
import { STEP_JOB_ATTEMPTS, workflowResumeJob, workflowStepJob } from './workflows.jobs.js';
import { loadedColumns, toLoaded, type Loaded, type LoadedRow } from './loaded.js';
import { addsOf, flushJobs, type PendingJobs, type SharedWrites } from './pending-writes.js';
import type { Tx } from '../db/tx.js';

/**
 * The execution engine (issue: workflows). A step runs inside a transaction that locks its execution;
 * delays and wait timeouts are `workflows:resume {executionId, stepId, outcome}` jobs with `run_at`
 * and a job key (`wf:<execution>:delay`, `wf:<execution>:wait`), so a restart loses none.
 *
 * Steps that follow one another without waiting run in one transaction, up to {@link INLINE_STEPS}
 * of them (`runChain`, chain.ts): the dispatch job that starts an execution runs its first steps, a resume
 * runs the steps after the delay, a step job runs the steps after its own. A Graphile job
 * `workflows:step {executionId, stepId}` carries a step only where that chain stops short of a wait:
 * a WEBHOOK step (it calls out between two transactions, webhook.step.ts), the step after the
 * budget, and every step of a chain that threw: the chain's transaction is rolled back whole and
 * redone the one-step way, its first step's job queued, so a failing step gets the step job's
 * retries and, at the last attempt, FAILS its execution as before. Running inline saves a job cycle
 * (claim, completion and a transaction) per step: a SEND_EMAIL step right after the trigger costs
 * no job of its own.
 *
 * Exactly once: a step job locks the execution row, checks that the execution is RUNNING at this
 * step, and records the step with `INSERT … ON CONFLICT (execution, step) DO NOTHING`; the step's
 * effects (an email row and its job, a contact update, the next step's job) are written in that same
 * transaction, so a second run of the job finds the row and does nothing, and a crash rolls all of
 * it back. A resume takes the step with `UPDATE … WHERE status = 'WAITING'`, so of an event and a
 * timeout racing for one wait only one wins. WEBHOOK steps call out between two transactions
 * (webhook.step.ts).
 */

export const delayKey = (executionId: string) => `wf:${executionId}:delay`;
export const waitKey = (executionId: string) => `wf:${executionId}:wait`;

export type { ResumeOutcome };

export interface StartInput {
  workflowId: string;
  projectId: string;
  contactId: string;
  allowReentry: boolean;
  context?: Record<string, unknown>;
  triggerEventId?: string | null;
  triggerData?: Record<string, unknown>;
  /** Causation depth of the trigger event (causation.ts); 0 for a manual start. */
  causationDepth?: number;
  /** Record the execution as EXITED with this reason instead of running it (a too-deep trigger event). */
  refuseWith?: string;
  now: Date;
  /** Queue the first step's job (default); false when the caller runs the step in its transaction. */
  queue?: boolean;
}

/** A started execution: its id, and the step it stands RUNNING at (null when it is COMPLETED or EXITED). */
export interface Started {
  id: string;
  stepId: string | null;
  /** The execution row and that step, as {@link lockAt} reads them, when it stands RUNNING (the insert holds its lock). */
  at: Loaded | null;
}

/**
 * Starts an execution unless allowReentry forbids it (false = at most once ever;
 * true = not while one is RUNNING or WAITING, settled under races by the partial unique index) or
 * this trigger event already started one (a repeated dispatch job). The TRIGGER step is recorded as
 * done and the execution placed RUNNING at the step after it with that step's job queued (or
 * COMPLETED when nothing follows), all in one statement; with `queue: false` the job is left to the
 * caller. With `refuseWith`, where an execution would have started one is recorded EXITED with that
 * reason, and nothing runs.
 * @returns the execution and the step it stands at, or null when refused.
 */
export async function startExecution(tx: Tx, input: StartInput): Promise<Started | null> {
  const id = newId();
  const now = input.now.toISOString();
  const eventId = input.triggerEventId ?? null;
  const refused = input.refuseWith !== undefined;
  const queue = input.queue ?? true;
  const r = await executePrepared<{ id: string; step_id: string | null } & LoadedRow>(
    tx,
    sql`
    with trig as (
      select s.id from workflow_steps s where s.workflow_id = ${input.workflowId} and s.type = 'TRIGGER' limit 1),
    nxt as (
      select t.to_step_id from workflow_transitions t
      where t.from_step_id = (select id from trig) and t.branch is null and t.wait_outcome is null order by t.id limit 1),
    ins as (
      insert into workflow_executions as x (id, workflow_id, project_id, contact_id, status, current_step_id, context,
        trigger_event_id, trigger_data, causation_depth, exit_reason, created_at, updated_at, completed_at)
      select ${id}, ${input.workflowId}, ${input.projectId}, ${input.contactId},
        case when ${refused} then 'EXITED' when exists (select 1 from nxt) then 'RUNNING' else 'COMPLETED' end,
        case when ${refused} then (select id from trig) else coalesce((select to_step_id from nxt), (select id from trig)) end,
        ${JSON.stringify(input.context ?? {})}::jsonb, ${eventId}::uuid,
        ${JSON.stringify(input.triggerData ?? {})}::jsonb, ${input.causationDepth ?? 0}, ${input.refuseWith ?? null},
        ${now}::timestamptz, ${now}::timestamptz,
        case when not ${refused} and exists (select 1 from nxt) then null else ${now}::timestamptz end
      where (${input.allowReentry} or not exists (select 1 from workflow_executions p
          where p.contact_id = ${input.contactId} and p.workflow_id = ${input.workflowId}))
        and (${eventId}::uuid is null or not exists (select 1 from workflow_executions p
          where p.contact_id = ${input.contactId} and p.workflow_id = ${input.workflowId} and p.trigger_event_id = ${eventId}::uuid))
        -- An EXITED row is outside the live unique index: refuse it here where a live one would conflict.
        and (not ${refused} or not exists (select 1 from workflow_executions p
          where p.contact_id = ${input.contactId} and p.workflow_id = ${input.workflowId} and p.status in ('RUNNING', 'WAITING')))
      on conflict (workflow_id, contact_id) where status in ('RUNNING', 'WAITING') do nothing
      returning x.*),
    trig_done as (
      insert into workflow_step_executions (id, execution_id, step_id, status, attempts, started_at, completed_at, created_at)
      select ${newId()}, ins.id, trig.id, 'COMPLETED', 1, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      from ins, trig where ins.status <> 'EXITED'),
    job as (
      select ${addJobSql(
        workflowStepJob.name,
        sql`json_build_object('executionId', ins.id, 'stepId', ins.current_step_id)`,
        { maxAttempts: STEP_JOB_ATTEMPTS },
      )}
      from ins where ins.status = 'RUNNING' and ${queue})
    select ${loadedColumns('ins', 's')}, case when ins.status = 'RUNNING' then ins.current_step_id end as step_id,
      (select count(*) from job)::int as jobs
    from ins left join workflow_steps s on s.id = ins.current_step_id and ins.status = 'RUNNING'`,
  );
  const row = r.rows[0];
  return row ? { id: row.id, stepId: row.step_id, at: row.step_id ? toLoaded(row) : null } : null;
}

/** What {@link advance} moves, from where, and what its statement writes besides. */
export interface AdvanceOptions {
  /** The execution to move; the caller holds its row lock ({@link lockAt}). */
  executionId: string;
  /** The step it leaves: the transitions from this step are the ones considered. */
  fromStepId: string;
  /**
   * The transition to take: the `branch` of a CONDITION (yes | no), SPLIT or SWITCH (a branch key),
   * a WAIT_FOR_EVENT's `waitOutcome`, `{}` after any other step.
   */
  match: { branch?: string; waitOutcome?: 'EVENT' | 'TIMEOUT' };
  /** Written as `updated_at` (and `completed_at` when the execution completes). */
  now: Date;
  /**
   * Queue the next step's `workflows:step` job (default true); false when the caller runs that step
   * in this transaction (a chain, {@link runChain}), which then also keeps `jobs` pending.
   */
  queue?: boolean;
  /** A `claimed` CTE ({@link claimStep}) that records the step left, in the same statement; default: records nothing. */
  claim?: SQL;
  /**
   * The chain's pending jobs ({@link PendingJobs}), added by this statement (and the array emptied)
   * when nothing runs after it in the transaction: with `queue`, or when the execution completes.
   * Default: none.
   */
  jobs?: PendingJobs;
}

/**
 * Moves an execution past `fromStepId` along the transition that matches (`branch` of a CONDITION,
 * SPLIT or SWITCH, `waitOutcome` of a WAIT_FOR_EVENT, neither otherwise): RUNNING at the next step with its job
 * queued (unless `queue` is false: the caller runs it), or COMPLETED when no transition leads on.
 * One statement, so that the step's record, the move and the jobs commit or roll back together.
 * @returns the execution row and the step it now stands RUNNING at (locked by this update), or null
 *   when it COMPLETED; and whether `claim` inserted its row (true without one: the caller rolls back
 *   on false, the step already ran).
 */
export async function advance(tx: Tx, opts: AdvanceOptions): Promise<{ next: Loaded | null; claimed: boolean }> {
  const { executionId, fromStepId, match, now, queue = true, claim = NO_CLAIM, jobs = [] } = opts;
  // One statement: record the step, pick the transition, move the execution, queue the next step's
  // job, and add the chain's pending jobs when nothing runs after this in the transaction (`queue`,
  // or no step follows); otherwise they stay pending for the next step's statement.
  const adds = addsOf(jobs, { when: sql`${queue} or not exists (select 1 from nxt)` });
  const r = await executePrepared<LoadedRow & { claimed: number; running: boolean }>(
    tx,
    sql`
    with ${claim},
    nxt as (
      select t.to_step_id from workflow_transitions t
      where t.from_step_id = ${fromStepId} and t.branch is not distinct from ${match.branch ?? null}::text
        and t.wait_outcome is not distinct from ${match.waitOutcome ?? null}::text
      order by t.id limit 1),
    moved as (
      update workflow_executions set
        current_step_id = coalesce((select to_step_id from nxt), current_step_id),
        status = case when exists (select 1 from nxt) then 'RUNNING' else 'COMPLETED' end,
        completed_at = case when exists (select 1 from nxt) then null else ${now.toISOString()}::timestamptz end,
        updated_at = ${now.toISOString()}::timestamptz
      where id = ${executionId}
      returning *)${adds}
    select (select count(*) from claimed)::int as claimed, m.id is not null as running, (select count(*) from jobs)::int as added, ${loadedColumns('m', 's')},
      case when ${queue} and m.id is not null then ${addJobSql(
        workflowStepJob.name,
        sql`json_build_object('executionId', ${executionId}::text, 'stepId', m.current_step_id)`,
        { maxAttempts: STEP_JOB_ATTEMPTS },
      )} end as job
    from (select 1) one left join moved m on m.status = 'RUNNING' left join workflow_steps s on s.id = m.current_step_id`,
  );
  const row = r.rows[0];
  if (queue || !row?.running) jobs.length = 0;
  return { next: row?.running ? toLoaded(row) : null, claimed: (row?.claimed ?? 0) > 0 };
}

/** Queues the `workflows:step` job of the step an execution stands RUNNING at, with the chain's pending jobs. */
export async function queueStep(tx: Tx, executionId: string, stepId: string, jobs: PendingJobs): Promise<void> {
  jobs.push(jobSpec(workflowStepJob, { executionId, stepId }));
  await flushJobs(tx, jobs);
}

/** After a step job's last failed attempt: the execution, if still live at that step, is FAILED. */
export async function failStuck(deps: Deps, executionId: string, stepId: string, error: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const r =
      await tx.execute(sql`update workflow_executions set status = 'FAILED', exit_reason = ${`Step failed: ${error}`.slice(0, 1000)},
        completed_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
      where id = ${executionId} and current_step_id = ${stepId} and status in ('RUNNING', 'WAITING') returning id`);
    if (!r.rows.length) return;
    await tx.execute(sql`insert into workflow_step_executions (id, execution_id, step_id, status, error, attempts, started_at, completed_at, created_at)
      values (${newId()}, ${executionId}, ${stepId}, 'FAILED', ${error.slice(0, 1000)}, ${STEP_JOB_ATTEMPTS}, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz)
      on conflict (execution_id, step_id) do update set status = 'FAILED', error = excluded.error, completed_at = excluded.completed_at`);
  });
}

/** How {@link finish} ends an execution, and what its statement writes besides. */
export interface FinishOptions {
  /** The execution to end; the caller holds its row lock ({@link lockAt}). */
  executionId: string;
  /** The end it comes to: COMPLETED (no step leads on), EXITED (an EXIT step), FAILED (a step failed). */
  status: 'COMPLETED' | 'EXITED' | 'FAILED';
  /** Why, as `exit_reason` (shown with the execution); null for none. */
  reason: string | null;
  /** Written as `completed_at` and `updated_at`. */
  now: Date;
  /** A `claimed` CTE ({@link claimStep}) that records the last step, in the same statement; default: records nothing. */
  claim?: SQL;
  /** The chain's pending jobs ({@link PendingJobs}), added by this statement, which empties the array. Default: none. */
  jobs?: PendingJobs;
}

/**
 * Ends an execution (COMPLETED, EXITED, FAILED) with its reason, in one statement with the last
 * step's record and the chain's jobs, so that they commit or roll back together.
 * @returns whether `claim` inserted its row (true without one: the caller rolls back on false, the
 *   step already ran).
 */
export async function finish(tx: Tx, opts: FinishOptions): Promise<boolean> {
  const { executionId, status, reason, now, claim = NO_CLAIM, jobs = [] } = opts;
  const r = await executePrepared<{ claimed: number }>(
    tx,
    sql`with ${claim},
    f as (update workflow_executions set status = ${status}, exit_reason = ${reason},
      completed_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz where id = ${executionId} returning id)${addsOf(jobs)}
    select (select count(*) from claimed)::int as claimed, (select count(*) from f)::int as ended, (select count(*) from jobs)::int as added`,
  );
  jobs.length = 0;
  return (r.rows[0]?.claimed ?? 0) > 0;
}

/** A `claimed` CTE that claims nothing, for statements run without a step to record. */
const NO_CLAIM = sql`claimed as (select 1 as id)`;

/**
 * The `claimed` CTE that records a step's run (`workflow_step_executions`) at most once: the unique
 * (execution, step) row. Its statement reports whether it inserted; when it did not, the step already
 * ran and the caller rolls the transaction back.
 */
function claimStep(executionId: string, stepId: string, result: StepResult, now: Date): SQL {
  const at = now.toISOString();
  // The step's own write (StepWrites.write) rides along: a data-modifying CTE always runs to completion.
  const write = result.write ? sql`, step_write as (${result.write})` : sql``;
  return sql`claimed as (insert into workflow_step_executions (id, execution_id, step_id, status, output, error,
      attempts, started_at, completed_at, created_at)
    values (${newId()}, ${executionId}, ${stepId}, ${result.kind === 'wait' ? 'WAITING' : result.kind === 'fail' ? 'FAILED' : 'COMPLETED'},
      ${JSON.stringify(result.output ?? {})}::jsonb, ${result.kind === 'fail' ? result.error : null}, 1, ${at}::timestamptz,
      ${result.kind === 'wait' ? null : at}::timestamptz, ${at}::timestamptz)
    on conflict (execution_id, step_id) do nothing returning id)${write}`;
}

/** The step {@link moveOn} moves past, its result, and where what it leaves goes. */
interface MoveOnOptions {
  /** The execution and step that ran, and the time it ran at (written as the record's and the execution's times). */
  ctx: Pick<StepCtx, 'exec' | 'step' | 'now'>;
  /** What the step's handler returned: where to go next, a wait, an exit or a failure. */
  result: StepResult;
  /** Queue the next step's `workflows:step` job; false when the caller runs it in this transaction. */
  queueNext: boolean;
  /** The chain's pending jobs ({@link PendingJobs}), added by this statement unless a next step runs after it. */
  jobs: PendingJobs;
  /** Set in a transaction of many starts ({@link SharedWrites}): waits and jobs are left to its last statement. */
  group?: SharedWrites;
}

/**
 * Moves the execution on after a step's result (or ends it, or parks it in WAITING), in one
 * statement with the step's record ({@link claimStep}). In a transaction of many starts (`group`),
 * a wait without a write of its own is only noted: the statement that ends that transaction writes
 * every chain's WAITING mark and jobs ({@link flushShared}).
 * @returns whether the step's record was inserted (or noted), and the execution and step it now
 *   stands RUNNING at (its job queued only when `queueNext`).
 */
export async function moveOn(tx: Tx, opts: MoveOnOptions): Promise<{ next: Loaded | null; claimed: boolean }> {
  const { ctx, result, queueNext, jobs, group } = opts;
  const execId = ctx.exec.id;
  if (result.kind === 'wait') {
    // The WAITING mark, the resume job of a timed wait and the chain's pending jobs in one statement.
    if (result.resumeAt) {
      jobs.push(
        jobSpec(
          workflowResumeJob,
          { executionId: execId, stepId: ctx.step.id, outcome: result.outcome },
          { runAt: result.resumeAt, jobKey: result.outcome === 'DELAY' ? delayKey(execId) : waitKey(execId) },
        ),
      );
    }
    // In a transaction of many starts, the one statement that ends it adds every chain's jobs.
    if (group) group.jobs.push(...jobs.splice(0));
    if (group && !result.write) {
      group.waits.push({
        id: newId(),
        execution_id: execId,
        step_id: ctx.step.id,
        output: result.output ?? {},
        at: ctx.now.toISOString(),
      });
      return { next: null, claimed: true };
    }
    const claim = claimStep(execId, ctx.step.id, result, ctx.now);
    const r = await executePrepared<{ claimed: number }>(
      tx,
      sql`with ${claim},
      w as (update workflow_executions set status = 'WAITING', updated_at = ${ctx.now.toISOString()}::timestamptz where id = ${execId} returning id)${addsOf(jobs)}
      select (select count(*) from claimed)::int as claimed, (select count(*) from jobs)::int as added`,
    );
    jobs.length = 0;
    return { next: null, claimed: (r.rows[0]?.claimed ?? 0) > 0 };
  }
  const claim = claimStep(execId, ctx.step.id, result, ctx.now);
  if (result.kind === 'next') {
    return advance(tx, {
      executionId: execId,
      fromStepId: ctx.step.id,
      match: result.match ?? {},
      now: ctx.now,
      queue: queueNext,
      claim,
      jobs,
    });
  }
  const claimed =
    result.kind === 'exit'
      ? await finish(tx, { executionId: execId, status: 'EXITED', reason: result.reason, now: ctx.now, claim, jobs })
      : await finish(tx, { executionId: execId, status: 'FAILED', reason: result.error, now: ctx.now, claim, jobs });
  return { next: null, claimed };
}
