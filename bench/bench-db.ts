import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import type { Deps } from '../src/deps.js';
import { outboxTransport } from '../src/emails/delivery/transport.js';
import { systemClock } from '../src/lib/clock.js';
import { createMetrics } from '../src/ops/metrics.js';
import { startEmbedded } from '../src/db/embedded.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { createDb, type Db } from '../src/db/pool.js';

/** The server where benchmarks create their databases: DATABASE_URL, else 127.0.0.1:5432. */
export const BENCH_SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  name: string;
  url: string;
  pool: pg.Pool;
  db: Db;
  /** Ends the pool and drops the database (also when other connections are still open). */
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database `<prefix>_<pid>` on {@link BENCH_SERVER}, so a benchmark never touches
 * real data and leaves nothing behind once `drop()` runs. With `BENCH_EMBEDDED=1` it is on Pigeon's
 * default database instead: the embedded PostgreSQL as `npm start` starts it without DATABASE_URL
 * (src/db/embedded.ts, same settings), in a scratch DATA_DIR that `drop()` stops and removes.
 */
export async function benchDatabase(prefix: string, poolSize = 20): Promise<BenchDatabase> {
  const name = `${prefix}_${process.pid}`;
  const scratch = `/tmp/pigeon-bench-embedded-${process.pid}`;
  const embedded =
    process.env.BENCH_EMBEDDED === '1' ? await startEmbedded(scratch, pino({ level: 'warn' })) : undefined;
  const server = embedded?.url ?? BENCH_SERVER;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = Object.assign(new URL(server), { pathname: `/${name}` }).toString();
  const { pool, db } = createDb(url, poolSize);
  const drop = async () => {
    await pool.end().catch(() => undefined);
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    if (embedded) {
      await embedded.stop();
      await rm(scratch, { recursive: true, force: true });
    }
  };
  try {
    await migrateDatabase(pool);
  } catch (err) {
    await drop();
    throw err;
  }
  return { name, url, pool, db, drop };
}

/**
 * The service's dependencies over a bench database, as main.ts builds them: silent logs, the system
 * clock, and the outbox (under `/tmp/<database name>`) as transport, so nothing is delivered.
 */
export function benchDeps(bench: BenchDatabase): Deps {
  const dataDir = `/tmp/${bench.name}`;
  return {
    config: loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, PORT: '0' }),
    db: bench.db,
    pool: bench.pool,
    clock: systemClock,
    log: pino({ level: 'silent' }),
    transport: outboxTransport(`${dataDir}/outbox`),
    secret: 'x'.repeat(40),
    metrics: createMetrics(),
  };
}

/** Inserts a project named "bench" (`id`, else a new one) and returns its id. */
export async function insertBenchProject(pool: pg.Pool, id: string = randomUUID()): Promise<string> {
  await pool.query(
    `insert into projects (id, name, public_key_hash, secret_key_hash, public_key_hint, secret_key_hint) values ($1, 'bench', $2, $3, 'p', 's')`,
    [id, randomUUID(), randomUUID()],
  );
  return id;
}
