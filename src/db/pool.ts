import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema.js';

export type Db = NodePgDatabase<typeof schema>;

// int8 (count(*), sums) as JS numbers: every count here fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
// numeric too (avg, percentages).
pg.types.setTypeParser(1700, (v) => Number(v));

/** One `pg` pool and the drizzle handle over it (DESIGN.md: one pool, one set of migrations). */
export function createDb(url: string, max = 20): { pool: pg.Pool; db: Db } {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000 });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return { pool, db: drizzle(pool, { schema }) };
}
