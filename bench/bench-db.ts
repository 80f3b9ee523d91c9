import pg from 'pg';
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
 * real data and leaves nothing behind once `drop()` runs.
 */
export async function benchDatabase(prefix: string, poolSize = 20): Promise<BenchDatabase> {
  const name = `${prefix}_${process.pid}`;
  const admin = new pg.Client({ connectionString: BENCH_SERVER });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = Object.assign(new URL(BENCH_SERVER), { pathname: `/${name}` }).toString();
  const { pool, db } = createDb(url, poolSize);
  const drop = async () => {
    await pool.end().catch(() => undefined);
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
  try {
    await migrateDatabase(pool);
  } catch (err) {
    await drop();
    throw err;
  }
  return { name, url, pool, db, drop };
}
