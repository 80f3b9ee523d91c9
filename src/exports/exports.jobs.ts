import { z } from 'zod';
import { defineJob } from '../worker/jobs.js';
import * as repo from './exports.repo.js';
import { runExport } from './file.js';
import { exportStorage } from './storage.js';

/** Attempts of an export before it is marked failed. */
const EXPORT_ATTEMPTS = 3;

/**
 * `exports:run {exportId}`: writes one export's file (file.ts `runExport`). Queued in the project's
 * Graphile queue `exports:<projectId>`, so a project's exports run one at a time, in order. On the last
 * failed attempt the export is marked `failed` with a sentence.
 */
export const runExportJob = defineJob({
  name: 'exports:run',
  payload: z.object({ exportId: z.guid() }),
  maxAttempts: EXPORT_ATTEMPTS,
  run: async (deps, { exportId }, helpers) => {
    const storage = exportStorage(deps.config);
    try {
      await runExport(deps, storage, exportId);
    } catch (err) {
      helpers.logger.error(`export ${exportId} failed: ${(err as Error).message}`);
      if (helpers.job.attempts >= helpers.job.max_attempts) {
        await repo.failExport(
          deps.db,
          exportId,
          `The export could not be written after ${helpers.job.attempts} attempts (${(err as Error).message}).`,
          deps.clock.now(),
        );
        return;
      }
      throw err;
    } finally {
      storage.close();
    }
  },
});

/** `exports:expire` (hourly cron): deletes the files of exports past their expiry, 100 a run. */
export const expireExportsJob = defineJob({
  name: 'exports:expire',
  payload: z.object({}),
  run: async (deps, _payload, helpers) => {
    const storage = exportStorage(deps.config);
    try {
      const due = await repo.dueForExpiry(deps.db, deps.clock.now());
      for (const e of due) {
        await storage.remove(e.storageKey);
        await repo.markExpired(deps.db, e.id);
      }
      if (due.length) helpers.logger.info(`deleted ${due.length} expired export files`);
    } finally {
      storage.close();
    }
  },
});

/** This feature's jobs (worker/tasks.ts). */
export const exportsJobs = [runExportJob, expireExportsJob];

/** Crontab lines of this feature (Graphile Worker format). */
export const exportsCrontab: string[] = [`17 * * * * ${expireExportsJob.name}`];
