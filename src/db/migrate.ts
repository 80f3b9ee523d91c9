import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { runMigrations } from 'graphile-worker';
import type pg from 'pg';
import { planAddJobsPerCall } from '../worker/graphile.js';

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
  const journal = JSON.parse(await readFile(path.join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ when: number }>;
  };
  const { rows } = await pool.query<{ last: string | null }>(
    'select max(created_at)::text as last from drizzle.__drizzle_migrations',
  );
  const last = Number(rows[0]?.last ?? 0);
  return journal.entries.filter((e) => e.when > last).length;
}
