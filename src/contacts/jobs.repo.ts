import { sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { newId } from '../lib/ids.js';
import { enqueue as enqueueJob, type JobDefinition } from '../worker/jobs.js';
import type { SqlRunner } from '../db/tx.js';

export type JobKind = 'import' | 'bulk-subscribe' | 'bulk-unsubscribe' | 'bulk-delete';
export type JobState = 'waiting' | 'active' | 'completed' | 'failed';

/** Import and bulk results. */
export interface JobResult {
  processed: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  errors: Array<{ row?: number; id?: string; message: string }>;
  [k: string]: unknown;
}

/** The status shape of `GET /contacts/import/:jobId` and `GET /contacts/bulk/:jobId`. */
export type JobStatus = {
  id: string;
  state: JobState;
  progress: number;
  result: JobResult | null;
  failedReason: string | null;
};

/**
 * Inserts the `background_jobs` row and its Graphile job of `job` in one transaction, so a
 * committed job always runs and a rolled-back one never does. The job payload is the id only.
 */
export async function enqueue(
  db: Db,
  projectId: string,
  kind: JobKind,
  job: JobDefinition<{ jobId: string }>,
  input: Record<string, unknown>,
  now: Date,
): Promise<string> {
  const id = newId();
  await db.transaction(async (tx) => {
    await tx.execute(sql`insert into background_jobs (id, project_id, kind, state, progress, input, created_at, updated_at)
      values (${id}, ${projectId}, ${kind}, 'waiting', 0, ${JSON.stringify(input)}::jsonb, ${now.toISOString()}, ${now.toISOString()})`);
    await enqueueJob(tx, job, { jobId: id });
  });
  return id;
}

/** Status of one of the project's jobs of the given kinds, without its (possibly large) input. */
export async function status(db: Db, projectId: string, id: string, kinds: JobKind[]): Promise<JobStatus | undefined> {
  const r = await db.execute<
    JobStatus & { kind: JobKind }
  >(sql`select id, kind, state, progress, result, failed_reason as "failedReason"
    from background_jobs where project_id = ${projectId} and id = ${id}`);
  const row = r.rows[0];
  if (!row || !kinds.includes(row.kind)) return undefined;
  return {
    id: row.id,
    state: row.state,
    progress: row.progress,
    result: row.result ?? null,
    failedReason: row.failedReason ?? null,
  };
}

export type TakenJob = {
  id: string;
  projectId: string;
  kind: JobKind;
  input: Record<string, unknown>;
};

/**
 * Takes a job for running: `waiting` (or `active`, left by a crashed run whose transaction rolled
 * back) becomes `active`. A completed or failed job is not taken again, so a repeated Graphile job
 * does nothing.
 */
export async function take(db: Db, id: string, now: Date): Promise<TakenJob | undefined> {
  const r =
    await db.execute<TakenJob>(sql`update background_jobs set state = 'active', updated_at = ${now.toISOString()}
    where id = ${id} and state in ('waiting', 'active')
    returning id, project_id as "projectId", kind, input`);
  return r.rows[0];
}

/** Progress in percent (0..100), written outside the job's transaction so pollers see it. */
export async function setProgress(db: Db, id: string, progress: number): Promise<void> {
  await db.execute(sql`update background_jobs set progress = ${Math.max(0, Math.min(100, Math.floor(progress)))}
    where id = ${id} and state = 'active'`);
}

/**
 * Marks the job completed with its result, inside the transaction of its writes, and drops the
 * uploaded file from `input`. False when the job is no longer active (another run finished it): the
 * caller then rolls its writes back.
 */
export async function complete(tx: SqlRunner, id: string, result: JobResult, now: Date): Promise<boolean> {
  const r =
    await tx.execute(sql`update background_jobs set state = 'completed', progress = 100, result = ${JSON.stringify(result)}::jsonb,
      input = input - 'file', updated_at = ${now.toISOString()}
    where id = ${id} and state = 'active'`);
  return (r.rowCount ?? 0) > 0;
}

/** Marks the job failed with a reason a user can act on; nothing of its work was committed. */
export async function fail(db: Db, id: string, reason: string, now: Date): Promise<void> {
  await db.execute(sql`update background_jobs set state = 'failed', failed_reason = ${reason}, input = input - 'file',
      updated_at = ${now.toISOString()}
    where id = ${id} and state in ('waiting', 'active')`);
}
