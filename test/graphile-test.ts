import type { Harness } from './harness.js';

/**
 * Graphile Worker's queue as tests read and bend it. Tests look at queued jobs (their payload,
 * priority, run_at, key) and move them (run a delayed job now, fake a dead worker's lock), which only
 * Graphile's PRIVATE tables allow; spelled here once, like src/worker/graphile.ts for the service, so
 * a Graphile upgrade that renames them is fixed in one file (src/worker/graphile.contract.test.ts
 * runs each of these against a migrated database).
 */

/** What the helpers need of a harness: its direct SQL. */
type Sql = Pick<Harness, 'sql'>;

/**
 * Every queued job as a derived table, for `select … from ${JOBS} j where …`. Columns: the public
 * `graphile_worker.jobs` view's (id, queue_name, task_identifier, priority, run_at, attempts,
 * max_attempts, last_error, created_at, key, locked_at, locked_by) plus `payload`, `is_available` and
 * `xmin` (the job row's, as text: which transaction wrote it). Reads `_private_jobs`,
 * `_private_tasks` and `_private_job_queues`, since the public view has no payload.
 */
export const JOBS = `(select j.id, q.queue_name, t.identifier as task_identifier, j.payload, j.priority, j.run_at,
    j.attempts, j.max_attempts, j.last_error, j.created_at, j.key, j.locked_at, j.locked_by, j.is_available, j.xmin::text as xmin
  from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    left join graphile_worker._private_job_queues q on q.id = j.job_queue_id)`;

/**
 * Makes queued jobs due now instead of waiting (a delay, a wait timeout, a campaign's poll): the job
 * with key `key`, or every job not running when no key is given.
 * @returns how many jobs it moved.
 */
export async function jobsDueNow(h: Sql, key?: string): Promise<number> {
  const rows =
    key === undefined
      ? await h.sql(`update graphile_worker._private_jobs set run_at = now() where locked_at is null returning id`)
      : await h.sql(`update graphile_worker._private_jobs set run_at = now() where key = $1 returning id`, [key]);
  return rows.length;
}

/** Deletes every queued job of the task `task` (e.g. an earlier test's, which this one must not see). */
export async function deleteJobsOf(h: Sql, task: string): Promise<void> {
  await h.sql(
    `delete from graphile_worker._private_jobs
    where task_id = (select id from graphile_worker._private_tasks where identifier = $1)`,
    [task],
  );
}

/**
 * Makes the job with key `key` look locked since `ago` (an interval, e.g. '1 minute') by `lockedBy`
 * (default: whoever locks it now), as a worker that died holding it would leave it.
 */
export async function backdateLock(h: Sql, key: string, ago: string, lockedBy?: string): Promise<void> {
  await h.sql(
    `update graphile_worker._private_jobs set locked_by = coalesce($3, locked_by), locked_at = now() - $2::interval where key = $1`,
    [key, ago, lockedBy ?? null],
  );
}

/** Sets the attempt count of the jobs `ids` (e.g. back to 0: as if never attempted). */
export async function setAttempts(h: Sql, ids: string[], attempts: number): Promise<void> {
  await h.sql(`update graphile_worker._private_jobs set attempts = $2 where id = any($1::bigint[])`, [ids, attempts]);
}
