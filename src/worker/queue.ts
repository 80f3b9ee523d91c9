import { sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';

/** A drizzle handle or a transaction of one: jobs are added in the caller's transaction. */
export type DbOrTx = Pick<Db, 'execute'>;

export interface JobOptions {
  /** When the job may run; default now. */
  runAt?: Date;
  /** Replaces a pending job with the same key (e.g. a wait timeout), Graphile Worker semantics. */
  jobKey?: string;
  maxAttempts?: number;
  /** Jobs in one queue run one at a time, in order. */
  queueName?: string;
  priority?: number;
}

/**
 * Adds a Graphile Worker job in the transaction of `db` (jobs are added in the same transaction as
 * the rows they act on). `payload` carries ids only.
 */
export async function addJob(db: DbOrTx, task: string, payload: Record<string, unknown>, opts: JobOptions = {}): Promise<void> {
  await db.execute(sql`select graphile_worker.add_job(
    ${task}, ${JSON.stringify(payload)}::json,
    queue_name => ${opts.queueName ?? null}::text,
    run_at => ${opts.runAt?.toISOString() ?? null}::timestamptz,
    max_attempts => ${opts.maxAttempts ?? null}::int,
    job_key => ${opts.jobKey ?? null}::text,
    priority => ${opts.priority ?? null}::int)`);
}

/** Removes a pending job by its key (e.g. a wait timeout whose event arrived). */
export async function removeJob(db: DbOrTx, jobKey: string): Promise<void> {
  await db.execute(sql`select graphile_worker.remove_job(${jobKey})`);
}
