import { rm } from 'node:fs/promises';
import pg from 'pg';
import pino from 'pino';
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
