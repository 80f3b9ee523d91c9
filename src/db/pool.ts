import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Config } from '../config.js';
import * as schema from './schema.js';

export type Db = NodePgDatabase<typeof schema>;

// int8 (count(*), sums) as JS numbers: every count here fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
// numeric too (avg, percentages).
pg.types.setTypeParser(1700, (v) => Number(v));

export interface PoolOptions {
  /**
   * PostgreSQL `statement_timeout` of every connection, in milliseconds (sent at connection start, so
   * it holds for every statement of the pool); unset or 0: none. A statement that runs longer is
   * cancelled with SQLSTATE 57014.
   */
  statementTimeoutMs?: number;
  /** How long a caller waits for a free connection before an error, in milliseconds; unset or 0: forever. */
  connectionTimeoutMs?: number;
  /** `application_name`, to tell the pools apart in `pg_stat_activity`. */
  applicationName?: string;
}

/**
 * A `pg` pool of at most `max` connections and the drizzle handle over it. The service opens one per
 * role (main.ts): the API's, with a statement timeout, and the worker's, so that long jobs never hold
 * the connections requests need.
 */
export function createDb(url: string, max = 20, opts: PoolOptions = {}): { pool: pg.Pool; db: Db } {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
    ...(opts.connectionTimeoutMs ? { connectionTimeoutMillis: opts.connectionTimeoutMs } : {}),
    ...(opts.applicationName ? { application_name: opts.applicationName } : {}),
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return { pool, db: drizzle(pool, { schema }) };
}

/** Longest wait of a request for a free API connection, in milliseconds; then 503 (http/db-errors.ts). */
export const API_POOL_WAIT_MS = 10_000;

/**
 * The API's pool: `API_DB_POOL_SIZE` connections whose statements stop after
 * `API_STATEMENT_TIMEOUT_MS`, and a request waits for a free connection at most as long (capped at
 * {@link API_POOL_WAIT_MS}): a slow query or a saturated pool is a 503, never a request that hangs.
 */
export function createApiDb(
  url: string,
  config: Pick<Config, 'API_DB_POOL_SIZE' | 'API_STATEMENT_TIMEOUT_MS'>,
  max = config.API_DB_POOL_SIZE,
) {
  const timeout = config.API_STATEMENT_TIMEOUT_MS;
  return createDb(url, max, {
    statementTimeoutMs: timeout,
    connectionTimeoutMs: timeout ? Math.min(timeout, API_POOL_WAIT_MS) : API_POOL_WAIT_MS,
    applicationName: 'pigeon-api',
  });
}

/** The worker's pool: `WORKER_DB_POOL_SIZE` connections of its own, with no statement timeout (jobs may run long). */
export function createWorkerDb(
  url: string,
  config: Pick<Config, 'WORKER_DB_POOL_SIZE'>,
  max = config.WORKER_DB_POOL_SIZE,
) {
  return createDb(url, max, { applicationName: 'pigeon-worker' });
}
