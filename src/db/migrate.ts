import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { runMigrations } from 'graphile-worker';
import type pg from 'pg';

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any constant shared by every Pigeon process; 'pigeon' as 32-bit int.
const LOCK_KEY = 0x70696765;

/**
 * Applies Pigeon's migrations (drizzle-kit SQL in `migrations/`) and Graphile Worker's schema, under a
 * session advisory lock so that several processes starting at once migrate exactly once.
 */
export async function migrateDatabase(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    try {
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });
      await runMigrations({ pgPool: pool, logger: silentLogger() });
      await planAddJobsPerCall(client);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

/**
 * Makes PostgreSQL plan the statements of Graphile's `add_jobs` (which `add_job` calls) for each call
 * instead of reusing one generic plan per connection. The generic plan of its "clear the key of a
 * locked job" UPDATE, made while the jobs table is small, is a hash join over a sequential scan of
 * the whole table; a pooled connection keeps it as the table grows, so every added job then reads
 * every queued one (bench/README.md, "add_job": 0.45 ms a call at 20,000 queued jobs this way, 1.9 ms
 * with the cached plan, and growing with the queue, e.g. a workflow's delayed executions). Applied
 * after Graphile's migrations on every start, since a Graphile upgrade that replaces the function
 * drops the setting; a no-op when it is already set.
 */
async function planAddJobsPerCall(client: pg.PoolClient): Promise<void> {
  const fn = `graphile_worker.add_jobs(graphile_worker.job_spec[], boolean)`;
  const { rows } = await client.query<{ set: boolean }>(
    `select coalesce('plan_cache_mode=force_custom_plan' = any(proconfig), false) as set from pg_proc where oid = $1::regprocedure`, [fn]);
  if (rows[0] && !rows[0].set) await client.query(`alter function ${fn} set plan_cache_mode = force_custom_plan`);
}

import { Logger } from 'graphile-worker';
function silentLogger() {
  return new Logger(() => () => undefined);
}

/**
 * How many of this version's migrations (`migrations/meta/_journal.json`) the database has not applied
 * yet, by their creation times (drizzle's migrator applies every migration newer than the last
 * applied one). 0 once `migrateDatabase` ran; more when an older process version migrated it.
 */
export async function pendingMigrations(pool: pg.Pool): Promise<number> {
  const journal = JSON.parse(await readFile(path.join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ when: number }> };
  const { rows } = await pool.query<{ last: string | null }>('select max(created_at)::text as last from drizzle.__drizzle_migrations');
  const last = Number(rows[0]?.last ?? 0);
  return journal.entries.filter((e) => e.when > last).length;
}
