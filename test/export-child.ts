/**
 * One export run alone in a process of its own, for measuring its memory from outside the test process
 * (src/exports/exports.memory.test.ts, bench/export.ts): runs export `EXPORT_ID` of the database at
 * `EXPORT_DATABASE_URL` into `EXPORT_DATA_DIR`, then prints `{"peakRss": bytes, "reset": bool, "ms": n}`: the
 * process's VmHWM since the start of the export (`reset`: whether the kernel let the peak be reset then).
 */
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createWorkerDb } from '../src/db/pool.js';
import type { Deps } from '../src/deps.js';
import { runExport } from '../src/exports/file.js';
import { exportStorage } from '../src/exports/storage.js';
import { peakRss, resetPeakRss } from './proc-memory.js';

const config = loadConfig({ DATA_DIR: process.env.EXPORT_DATA_DIR!, LOG_LEVEL: 'silent' });
const { pool, db } = createWorkerDb(process.env.EXPORT_DATABASE_URL!, config, 2);
const deps = {
  config,
  db,
  pool,
  log: pino({ level: 'silent' }),
  secret: 'child-secret-child-secret-child-secret-01',
  clock: { now: () => new Date() },
} as unknown as Deps;
const storage = exportStorage(config);
// Loading the modules through tsx peaks higher than a built worker (node dist/main.js): the peak is
// measured from here, the export's own.
const reset = await resetPeakRss(process.pid);
const started = performance.now();
await runExport(deps, storage, process.env.EXPORT_ID!);
const ms = Math.round(performance.now() - started);
storage.close();
await pool.end();
process.stdout.write(`${JSON.stringify({ peakRss: await peakRss(process.pid), reset, ms })}\n`);
