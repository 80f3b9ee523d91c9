import { is, SQL, sql } from 'drizzle-orm';
import type pg from 'pg';
import type { SqlRunner } from '../db/tx.js';

/**
 * Every SQL statement or fragment of Pigeon that names an object of Graphile Worker's schema
 * (`graphile_worker.*`). Graphile documents its SQL functions (`add_job`, `add_jobs`, `remove_job`,
 * `force_unlock_workers`) and the `job_spec` type as its API; the `_private_*` tables are not, and a
 * Graphile upgrade may change them without notice. Pigeon reads and writes them where the public API
 * has no equivalent (queue metrics, taking over queued jobs, finding the locks of dead workers), so
 * they are spelled here only, each helper saying what it relies on. graphile.contract.test.ts checks
 * every object and column named here against a migrated database and runs each helper once: after
 * an upgrade, that test says what moved. No other module of src/ may name `graphile_worker.` in code
 * (the same test greps for it).
 *
 * Helpers that return `SQL` are fragments for the caller's own statement (they run in its
 * transaction, often inside a CTE); the others run one statement on the handle they are given.
 */

/** Graphile Worker options of one job added by worker/jobs.ts `enqueue`. */
export interface JobOptions {
  /** When the job may run; default now. */
  runAt?: Date;
  /** Replaces a pending job with the same key (e.g. a wait timeout), Graphile Worker semantics. */
  jobKey?: string;
  /** Attempts before Graphile gives up; default the definition's, else Graphile's (25). */
  maxAttempts?: number;
  /** Jobs in one queue run one at a time, in order; default the definition's, else none. */
  queueName?: string;
  priority?: number;
}

/** What a Graphile call needs of a job definition (worker/jobs.ts `JobDefinition`): its task name and default options. */
export interface JobTarget {
  readonly name: string;
  readonly defaults: Readonly<Pick<JobOptions, 'maxAttempts' | 'queueName'>>;
}

/** Graphile's `add_jobs` function by its signature, for `regprocedure` look-ups and `alter function`. */
export const ADD_JOBS_FUNCTION = 'graphile_worker.add_jobs(graphile_worker.job_spec[], boolean)';

/**
 * A value for one argument of `add_job` or one field of a `job_spec`: a JavaScript value (bound as a
 * parameter, cast to the argument's type), an SQL expression of the caller's statement (written as
 * is: the caller answers for its type), or `null`.
 */
export type JobArg<T> = T | null | SQL;

/** Named arguments of `graphile_worker.add_job` (and fields of a `job_spec`); an absent one is Graphile's default. */
export interface AddJobArgs {
  queueName?: JobArg<string>;
  runAt?: JobArg<Date>;
  maxAttempts?: JobArg<number>;
  jobKey?: JobArg<string>;
  priority?: JobArg<number>;
}

/** `value` as SQL: an SQL expression as written, else a parameter cast to `type` (a Date as ISO text). */
function arg(value: JobArg<string | number | Date>, type: string): SQL {
  if (is(value, SQL)) return value;
  return sql`${value instanceof Date ? value.toISOString() : value}::${sql.raw(type)}`;
}

/**
 * A call of Graphile's public `graphile_worker.add_job(identifier, payload, queue_name => …, run_at
 * => …, max_attempts => …, job_key => …, priority => …)` as an SQL expression (its value is the added
 * row; `(call).id` its id). Only the arguments given in `args` are passed, by name, so Graphile's
 * defaults apply to the others (no queue, now, 25 attempts, no key, priority 0). `payload` is a
 * `json` expression. Relies on the function's argument names (public API).
 */
export function addJobSql(task: string, payload: SQL, args: AddJobArgs = {}): SQL {
  const named: SQL[] = [];
  if (args.queueName !== undefined) named.push(sql`queue_name => ${arg(args.queueName, 'text')}`);
  if (args.runAt !== undefined) named.push(sql`run_at => ${arg(args.runAt, 'timestamptz')}`);
  if (args.maxAttempts !== undefined) named.push(sql`max_attempts => ${arg(args.maxAttempts, 'int')}`);
  if (args.jobKey !== undefined) named.push(sql`job_key => ${arg(args.jobKey, 'text')}`);
  if (args.priority !== undefined) named.push(sql`priority => ${arg(args.priority, 'int')}`);
  const rest = named.length ? sql`,\n    ${sql.join(named, sql`,\n    `)}` : sql``;
  return sql`graphile_worker.add_job(
    ${task}::text, ${payload}${rest})`;
}

/**
 * The `graphile_worker.add_job(…)` call adding `job` with the definition's defaults under `opts`,
 * as an SQL expression, for a statement that computes the payload itself (`payload`: a `json`
 * expression, e.g. from the row a CTE inserted). The caller answers for the payload matching the
 * job's schema; `enqueue` (jobs.ts) checks it for payloads built in JavaScript. Every argument is
 * passed (null for none), so the statement's text is the same whatever `opts` holds. Public API
 * (see {@link addJobSql}).
 */
export function addJobCall(job: JobTarget, payload: SQL, opts: JobOptions = {}): SQL {
  return addJobSql(job.name, payload, {
    queueName: opts.queueName ?? job.defaults.queueName ?? null,
    runAt: opts.runAt ?? null,
    maxAttempts: opts.maxAttempts ?? job.defaults.maxAttempts ?? null,
    jobKey: opts.jobKey ?? null,
    priority: opts.priority ?? null,
  });
}

/**
 * One job as a `graphile_worker.job_spec` row expression (task, payload, queue_name, run_at,
 * max_attempts, job_key, priority, flags), for {@link addJobsSelect} or {@link addJobsCall}. A field
 * absent from `fields` is a bare null (Graphile's default); flags are always null. Relies on the
 * public composite type `job_spec` and the ORDER of its fields (a row constructor is positional).
 */
export function jobSpecSql(task: string, payload: SQL, fields: AddJobArgs = {}): SQL {
  const field = (v: JobArg<string | number | Date> | undefined, type: string) =>
    v === undefined ? sql`null` : arg(v, type);
  return sql`row(${task}::text, ${payload}, ${field(fields.queueName, 'text')},
    ${field(fields.runAt, 'timestamptz')}, ${field(fields.maxAttempts, 'smallint')},
    ${field(fields.jobKey, 'text')}, ${field(fields.priority, 'smallint')}, null::text[])::graphile_worker.job_spec`;
}

/**
 * One job of `job` as a `job_spec` row ({@link jobSpecSql}) with the definition's defaults under
 * `opts`, every field given (null for none). `payload`: a `json` expression, e.g. from a CTE's row;
 * the caller answers for its schema (`jobSpec` in jobs.ts checks one built in JavaScript).
 */
export function jobSpecRow(job: JobTarget, payload: SQL, opts: JobOptions = {}): SQL {
  return jobSpecSql(job.name, payload, {
    queueName: opts.queueName ?? job.defaults.queueName ?? null,
    runAt: opts.runAt ?? null,
    maxAttempts: opts.maxAttempts ?? job.defaults.maxAttempts ?? null,
    jobKey: opts.jobKey ?? null,
    priority: opts.priority ?? null,
  });
}

/** A SELECT of the given {@link jobSpecRow} rows (column `spec`), for {@link addJobsSelect}. */
export function jobSpecsOf(specs: SQL[]): SQL {
  return sql`select spec from (${sql.join(
    specs.map((s) => sql`select ${s} as spec`),
    sql` union all `,
  )}) specs`;
}

/**
 * A SELECT that adds the jobs `specs` yields (a SELECT of {@link jobSpecRow} rows) with ONE
 * `graphile_worker.add_jobs` call (public API), one row (`id`) per job added, and that calls nothing
 * when `specs` yields no row. Graphile's add_job costs the same server time a call whatever the number
 * of jobs (bench/add-job.ts), so a statement adding a job per row of a batch adds them all at once.
 */
export function addJobsSelect(specs: SQL): SQL {
  // OFFSET 0 keeps the array a subquery of its own: pulled up, it would be computed twice.
  return sql`select j.id from (select array(${specs}) as specs offset 0) s
    cross join lateral graphile_worker.add_jobs(s.specs) j
    where cardinality(s.specs) > 0`;
}

/**
 * `graphile_worker.add_jobs(array(<specs>))` (public API) as a set-returning expression for a FROM
 * clause, one row per job added: unlike {@link addJobsSelect}, Graphile is called even when `specs`
 * yields no row (a campaign batch, which always has rows or ends the fan-out).
 */
export function addJobsCall(specs: SQL): SQL {
  return sql`graphile_worker.add_jobs(array(${specs}))`;
}

/** Removes a pending job by its key (e.g. a wait timeout whose event arrived), with Graphile's public `remove_job`. */
export async function removeJob(db: SqlRunner, jobKey: string): Promise<void> {
  await db.execute(sql`select graphile_worker.remove_job(${jobKey})`);
}

/**
 * {@link removeJob} for each of `keys`, in one statement (public `remove_job`, called per key: Graphile
 * has no bulk form). A key with no job is ignored, as `remove_job` ignores it.
 */
export async function removeJobs(db: SqlRunner, keys: string[]): Promise<void> {
  await db.execute(
    sql`select graphile_worker.remove_job(k) from jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb) k`,
  );
}

/** What the pg helpers below need of a client or pool. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * Makes PostgreSQL plan the statements of Graphile's `add_jobs` (which `add_job` calls) for each call
 * instead of reusing one generic plan per connection. The generic plan of its "clear the key of a
 * locked job" UPDATE, made while the jobs table is small, is a hash join over a sequential scan of
 * the whole table; a pooled connection keeps it as the table grows, so every added job then reads
 * every queued one (bench/add-job.ts). Run after Graphile's migrations on every start
 * (db/migrate.ts), since a Graphile upgrade that replaces the function drops the setting; a no-op
 * when it is already set. Relies on the signature {@link ADD_JOBS_FUNCTION} (public API) and on
 * `pg_proc.proconfig`.
 */
export async function planAddJobsPerCall(client: Queryable): Promise<void> {
  const { rows } = await client.query<{ set: boolean }>(
    `select coalesce('plan_cache_mode=force_custom_plan' = any(proconfig), false) as set from pg_proc where oid = $1::regprocedure`,
    [ADD_JOBS_FUNCTION],
  );
  if (rows[0] && !rows[0].set)
    await client.query(`alter function ${ADD_JOBS_FUNCTION} set plan_cache_mode = force_custom_plan`);
}

/**
 * The worker ids that have held a job or a job queue locked for more than `olderThanSeconds`
 * (candidates for {@link forceUnlockWorkers} once known dead). Reads the PRIVATE tables
 * `_private_jobs` and `_private_job_queues` (`locked_by`, `locked_at`): Graphile has no public view of
 * queue locks, and its own recovery waits 4 hours.
 */
export async function staleLockOwners(client: Queryable, olderThanSeconds: number): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    `
      select distinct locked_by as id from graphile_worker._private_jobs
        where locked_by is not null and locked_at < now() - make_interval(secs => $1)
      union
      select distinct locked_by from graphile_worker._private_job_queues
        where locked_by is not null and locked_at < now() - make_interval(secs => $1)`,
    [olderThanSeconds],
  );
  return rows.map((r) => r.id);
}

/**
 * Unlocks every job and queue locked by `workerIds` (their jobs run again at once on any worker), with
 * Graphile's public `force_unlock_workers`. Only for workers known to be dead (worker/liveness.ts).
 */
export async function forceUnlockWorkers(client: Queryable, workerIds: string[]): Promise<void> {
  await client.query('select graphile_worker.force_unlock_workers($1::text[])', [workerIds]);
}

/** Jobs of one task by state, as {@link jobStatsByTask} counts them. */
export interface TaskJobStats {
  task: string;
  /** Due and not running. */
  ready: number;
  /** Waiting for a later `run_at`. */
  scheduled: number;
  running: number;
  /** Out of attempts (Graphile keeps them until deleted). */
  failed: number;
  /** Seconds since the oldest ready job was due; null when none is. */
  oldest: number | null;
}

/**
 * Queued jobs counted by task and state, for the `/metrics` gauges (ops/metrics.ts), in one scan.
 * Reads the PRIVATE tables `_private_jobs` (`is_available`, `run_at`, `locked_at`, `task_id`) and
 * `_private_tasks` (`identifier`): the public `jobs` view has no `is_available` and costs a join per
 * row to `_private_job_queues` that the counts do not need.
 */
export async function jobStatsByTask(client: Queryable): Promise<TaskJobStats[]> {
  const { rows } = await client.query<TaskJobStats>(`
      select t.identifier as task,
        count(*) filter (where j.is_available and j.run_at <= now())::int as ready,
        count(*) filter (where j.is_available and j.run_at > now())::int as scheduled,
        count(*) filter (where j.locked_at is not null)::int as running,
        count(*) filter (where not j.is_available and j.locked_at is null)::int as failed,
        extract(epoch from now() - min(j.run_at) filter (where j.is_available and j.run_at <= now()))::float8 as oldest
      from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      group by t.identifier`);
  return rows;
}

/** A queued job {@link lockWaitingJobs} took: its id and stored payload. */
export interface WaitingJob {
  id: string;
  payload: unknown;
}

/**
 * Locks (`FOR UPDATE SKIP LOCKED`, in `client`'s open transaction) up to `limit` jobs of `task` that
 * Graphile would start now and that were never attempted (available, due, in no named queue), other
 * than `exceptId`, in Graphile's own order (priority, run_at, id), and returns them. While the
 * transaction holds them, Graphile's fetch skips them; the caller then deletes them
 * ({@link deleteJobs}) or counts its failure against them ({@link countFailedAttempt}) before it
 * commits. Reads the PRIVATE tables `_private_jobs` (`task_id`, `is_available`, `attempts`, `run_at`,
 * `job_queue_id`, `priority`) and `_private_tasks`: Graphile has no public way to take jobs over.
 */
export async function lockWaitingJobs(
  client: Queryable,
  task: string,
  exceptId: string,
  limit: number,
): Promise<WaitingJob[]> {
  const r = await client.query<WaitingJob>({
    name: 'pigeon_graphile_lock_waiting',
    text: `select j.id, j.payload from graphile_worker._private_jobs j
        where j.task_id = (select t.id from graphile_worker._private_tasks t where t.identifier = $1)
          and j.is_available and j.attempts = 0 and j.run_at <= now() and j.job_queue_id is null and j.id <> $2::bigint
        order by j.priority, j.run_at, j.id limit $3
        for update of j skip locked`,
    values: [task, exceptId, limit],
  });
  return r.rows;
}

/**
 * Counts one failed attempt (`attempts` + 1, `last_error` = `error`) against the jobs `ids` that are
 * still unlocked and never attempted; they stay runnable at once (Graphile's back-off applies from the
 * next failure). Writes the PRIVATE table `_private_jobs`: the public `reschedule_jobs` would also
 * move their run_at and needs no error text.
 */
export async function countFailedAttempt(client: Queryable, ids: string[], error: string): Promise<void> {
  await client.query({
    name: 'pigeon_graphile_count_failed',
    text: `update graphile_worker._private_jobs set attempts = attempts + 1, last_error = $2
          where id = any($1::bigint[]) and locked_at is null and attempts = 0`,
    values: [ids, error],
  });
}

/**
 * Deletes the jobs `ids` (the caller did their work instead of Graphile), whatever their lock: the
 * caller holds them by row lock ({@link lockWaitingJobs}), not by Graphile's `locked_at`. Writes the
 * PRIVATE table `_private_jobs`; the public `complete_jobs` deletes the same rows as long as they are
 * unlocked, and could replace this if the table's name changes.
 */
export async function deleteJobs(client: Queryable, ids: string[]): Promise<void> {
  await client.query({
    name: 'pigeon_graphile_delete_jobs',
    text: `delete from graphile_worker._private_jobs where id = any($1::bigint[])`,
    values: [ids],
  });
}
