import { sql, type SQL } from 'drizzle-orm';
import { executePrepared } from '../db/prepared.js';
import type { JobHelpers } from 'graphile-worker';
import type { z } from 'zod';
import type { Deps } from '../deps.js';
import { addJobCall, jobSpecRow, type JobOptions } from './graphile.js';
import type { SqlRunner } from '../db/tx.js';

export type { JobOptions };

/**
 * Typed background jobs over Graphile Worker.
 *
 * A feature declares each of its jobs once, in its `<feature>.jobs.ts`, with {@link defineJob}: the
 * task name, a zod schema of the payload (ids only: the job reads the rows it acts on when it runs)
 * and the function that runs it. Code that queues work calls {@link enqueue} with the definition, so
 * the name and the payload shape are checked where the job is added; raw SQL that adds jobs in bulk
 * (graphile.ts `addJobCall`, `jobSpecRow`) binds the definition's `name` for the same reason. The
 * worker's task list (tasks.ts) is built from one registry of these definitions.
 *
 * Job files are leaves of the import graph (they import this module and zod), so any module may
 * import a definition to queue it. When the module that does a job's work also queues that job,
 * directly or through its imports (a retry, a follow-up step), `run` loads it with `import()` when
 * the job runs instead of importing it at the top, which would make an import cycle.
 */

/**
 * `load` (an `import()` of the module that does a job's work) run once and its promise kept: Node
 * resolves an `import()` specifier again on every call, package.json look-ups included, which cost
 * the worker about 0.2 ms a job (2.4 % of its CPU profile in the workflows bench), so `run`
 * functions load their module through this.
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

/** What a job runs: the payload is the schema's output; throw to have Graphile retry the job. */
export type JobRun<P> = (deps: Deps, payload: P, helpers: JobHelpers) => Promise<void>;

/**
 * One background job: `name` is the Graphile task identifier (stored in every queued row, so it never
 * changes once released), `schema` the payload's, `defaults` the options {@link enqueue} applies when
 * the caller gives none.
 */
export interface JobDefinition<P> {
  readonly name: string;
  readonly schema: z.ZodType<P>;
  readonly defaults: Readonly<Pick<JobOptions, 'maxAttempts' | 'queueName'>>;
  // A method, not a property, so that a registry of definitions of different payloads is a
  // `JobDefinition<unknown>[]`; each `run` only ever gets its own schema's output (runJob).
  run(deps: Deps, payload: P, helpers: JobHelpers): Promise<void>;
}

/** The argument of {@link defineJob}. */
export interface JobSpec<P> {
  /** Graphile task identifier, `<feature>:<verb>`. */
  name: string;
  /** zod schema of the payload, ids only, e.g. `z.object({ emailId: z.guid() })`. */
  payload: z.ZodType<P>;
  /** Default of {@link JobOptions.maxAttempts}. */
  maxAttempts?: number;
  /** Default of {@link JobOptions.queueName}. */
  queueName?: string;
  run: JobRun<P>;
}

/**
 * Declares a job. The result is what {@link enqueue} takes and what the worker's registry lists.
 *
 * At run time the stored payload is parsed with the schema first ({@link runJob}). A payload that does
 * not parse (a row added by hand or by an older release) is logged as an error with the job name and
 * the payload cut to 200 characters, and the job completes without calling `run`: retrying it could
 * never succeed, so it is not left to fail 25 times.
 */
export function defineJob<P>(spec: JobSpec<P>): JobDefinition<P> {
  return {
    name: spec.name,
    schema: spec.payload,
    defaults: { maxAttempts: spec.maxAttempts, queueName: spec.queueName },
    run: spec.run,
  };
}

/**
 * Adds `job` with `payload` in the transaction of `db` (jobs are added in the same transaction as the
 * rows they act on, so a rolled-back write queues nothing). `opts` override the definition's
 * defaults. The stored payload is the schema's output.
 * @throws Error (cause: the ZodError) when `payload` does not match the job's schema: a programming
 * error, found before anything is written.
 */
export async function enqueue<P>(
  db: SqlRunner,
  job: JobDefinition<P>,
  payload: NoInfer<P>,
  opts: JobOptions = {},
): Promise<void> {
  // Prepared: the text is the same for every job, only the parameters differ.
  await executePrepared(db, sql`select ${enqueueCall(job, payload, opts)}`);
}

/**
 * `payload` parsed with the job's schema, as a `json` SQL parameter.
 * @throws Error (cause: the ZodError) when it does not match.
 */
function checkedPayload<P>(job: JobDefinition<P>, payload: P): SQL {
  const parsed = job.schema.safeParse(payload);
  if (!parsed.success) {
    throw new Error(`Job ${job.name} queued with an invalid payload: ${issues(parsed.error)}`, { cause: parsed.error });
  }
  return sql`${JSON.stringify(parsed.data)}::json`;
}

/**
 * {@link enqueue} as an SQL expression, for a caller that adds the job inside a statement of its own
 * (e.g. `select <call> from <the CTE that updated the row>`, one round trip for both).
 * @throws Error (cause: the ZodError) when `payload` does not match the job's schema.
 */
export function enqueueCall<P>(job: JobDefinition<P>, payload: NoInfer<P>, opts: JobOptions = {}): SQL {
  return addJobCall(job, checkedPayload(job, payload), opts);
}

/**
 * graphile.ts {@link jobSpecRow} for a payload built in JavaScript, checked like {@link enqueue} checks it.
 * @throws Error (cause: the ZodError) when `payload` does not match the job's schema.
 */
export function jobSpec<P>(job: JobDefinition<P>, payload: NoInfer<P>, opts: JobOptions = {}): SQL {
  return jobSpecRow(job as JobDefinition<unknown>, checkedPayload(job, payload), opts);
}

/** Longest excerpt of a refused payload written to the log. */
const LOGGED_PAYLOAD_CHARS = 200;

/**
 * Runs one job of `job` with the payload as Graphile stored it (`null` counts as `{}`: cron jobs and
 * hand-added rows). Parses it with the schema and calls `run`; a payload that does not parse is
 * logged through `helpers.logger.error` and the call returns (see {@link defineJob}).
 * @throws whatever `run` throws (Graphile retries the job).
 */
export async function runJob<P>(
  job: JobDefinition<P>,
  deps: Deps,
  payload: unknown,
  helpers: JobHelpers,
): Promise<void> {
  const parsed = job.schema.safeParse(payload ?? {});
  if (!parsed.success) {
    const excerpt = (JSON.stringify(payload) ?? String(payload)).slice(0, LOGGED_PAYLOAD_CHARS);
    helpers.logger.error(`${job.name}: invalid payload, job dropped (${issues(parsed.error)}): ${excerpt}`);
    return;
  }
  await job.run(deps, parsed.data, helpers);
}

/** `path: message` of each issue, for one log line or error message. */
function issues(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`)
    .join('; ')
    .slice(0, LOGGED_PAYLOAD_CHARS);
}
