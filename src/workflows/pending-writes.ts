import { sql, type SQL } from 'drizzle-orm';
import { executePrepared } from '../db/prepared.js';
import type { Tx } from '../db/tx.js';
import { addJobsSelect, jobSpecsOf } from '../worker/graphile.js';
import type { SendPrefetch } from './steps.run.js';

/**
 * What a chain of workflow steps leaves for a later statement of its transaction to write: the jobs
 * it has yet to add, and, in a transaction of many starts (dispatch.ts), the mails, jobs and WAITING
 * marks all its chains share (engine.ts runs the steps and leaves these here).
 */

/**
 * Jobs a chain of steps has yet to add (worker/jobs.ts `jobSpec` rows): its steps' jobs (a
 * SEND_EMAIL's `emails:send`) wait for the chain's last statement, which adds them all, with its own
 * (a wait's resume job, the next step's job), in ONE Graphile call: a call costs the same server time
 * for one job or many (bench/add-job.ts). Emptied by the statement that adds them.
 */
export type PendingJobs = SQL[];

/**
 * The `jobs` CTE adding `jobs` (none: a CTE of no rows) for a statement that references it; with
 * `when`, a condition the statement's other CTEs decide, only when it holds.
 */
export function addsOf(jobs: PendingJobs, { when }: { when?: SQL } = {}): SQL {
  if (!jobs.length) return sql`, jobs as (select null::bigint as id where false)`;
  const specs = when ? sql`select spec from (${jobSpecsOf(jobs)}) p where ${when}` : jobSpecsOf(jobs);
  return sql`, jobs as (${addJobsSelect(specs)})`;
}

/** Adds what a chain left pending in a statement of its own (only where no statement of the chain took it). */
export async function flushJobs(tx: Tx, jobs: PendingJobs): Promise<void> {
  if (!jobs.length) return;
  await executePrepared(tx, sql`with jobs as (${addJobsSelect(jobSpecsOf(jobs))}) select count(*) from jobs`);
  jobs.length = 0;
}

/**
 * What the chains of a transaction of many starts (dispatch.ts `startAll`) leave to its last statement
 * ({@link flushShared}): `mails`, the PENDING emails of their SEND_EMAIL steps, sent as
 * `emails:send-batch` jobs (one claim and shared outcome writes, emails/delivery/deliver.ts `deliverBatch`)
 * instead of a job each; `jobs`, their waits' resume jobs; and `waits`, the WAITING marks of the
 * steps they stopped at. All jobs are added by one `add_jobs` call, which costs the server about the
 * same for one job or many (bench/add-job.ts), and all marks by one insert and one update.
 * `prefetch` is what their SEND_EMAIL steps read once for all of them.
 */
export interface SharedWrites {
  mails: string[];
  jobs: PendingJobs;
  waits: DeferredWait[];
  prefetch?: SendPrefetch;
}

/** A wait's record (`workflow_step_executions`, WAITING) and its execution's WAITING mark, left to {@link flushShared}. */
interface DeferredWait {
  /** The step record's id (UUIDv7: a dispatch compares it with event ids, see dispatch.ts). */
  id: string;
  execution_id: string;
  step_id: string;
  output: Record<string, unknown>;
  /** ISO 8601: when the step ran. */
  at: string;
}

/** An empty {@link SharedWrites}. */
export function sharedWrites(prefetch?: SendPrefetch): SharedWrites {
  return { mails: [], jobs: [], waits: [], prefetch };
}

/** What {@link flushShared} writes. */
export interface FlushSharedOptions {
  /** What the transaction's chains left; emptied by the call. */
  group: SharedWrites;
  /** Jobs of the caller's (worker/jobs.ts `jobSpec` rows) added in the same call, e.g. the `emails:send-batch` jobs of `group.mails`. Default: none. */
  more?: SQL[];
}

/**
 * The last statement of a transaction of many starts: the chains' WAITING marks (each step recorded
 * at most once, as engine.ts `claimStep` does), their jobs and `more` jobs, in one statement.
 * @throws Error when a wait's step was already recorded (a second run): the caller rolls back.
 */
export async function flushShared(tx: Tx, opts: FlushSharedOptions): Promise<void> {
  const { group, more = [] } = opts;
  const jobs = [...group.jobs, ...more];
  group.jobs.length = 0;
  if (!group.waits.length) return flushJobs(tx, jobs);
  const waits = group.waits.splice(0);
  const r = await executePrepared<{ claimed: number }>(
    tx,
    sql`
    with w as (select * from jsonb_to_recordset(${JSON.stringify(waits)}::jsonb)
        as w(id uuid, execution_id uuid, step_id uuid, output jsonb, at timestamptz)),
      claimed as (insert into workflow_step_executions (id, execution_id, step_id, status, output, attempts, started_at, created_at)
        select w.id, w.execution_id, w.step_id, 'WAITING', w.output, 1, w.at, w.at from w
        on conflict (execution_id, step_id) do nothing returning id),
      waiting as (update workflow_executions x set status = 'WAITING', updated_at = w.at from w where x.id = w.execution_id returning x.id)${addsOf(jobs)}
    select (select count(*) from claimed)::int as claimed, (select count(*) from jobs)::int as added`,
  );
  if (r.rows[0].claimed !== waits.length)
    throw new Error(`${waits.length - r.rows[0].claimed} of ${waits.length} waiting steps already ran`);
}
