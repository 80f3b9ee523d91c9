import { z } from 'zod';
import { defineJob } from '../worker/jobs.js';

/** Entries one retention statement deletes at most: a short statement, never a long lock. */
export const AUDIT_RETENTION_BATCH = 5000;

/**
 * `audit:retention` (nightly cron): deletes audit entries older than `AUDIT_LOG_RETENTION_DAYS`, in
 * statements of {@link AUDIT_RETENTION_BATCH} rows, each its own transaction, until none is left.
 */
export const auditRetentionJob = defineJob({
  name: 'audit:retention',
  payload: z.object({}),
  run: async (deps, _payload, helpers) => {
    const { deleteOlderThan } = await import('./audit.repo.js');
    const before = new Date(deps.clock.now().getTime() - deps.config.AUDIT_LOG_RETENTION_DAYS * 86_400_000);
    let total = 0;
    for (;;) {
      const n = await deleteOlderThan(deps.db, before, AUDIT_RETENTION_BATCH);
      total += n;
      if (n < AUDIT_RETENTION_BATCH) break;
    }
    if (total) helpers.logger.info(`deleted ${total} audit log entries older than ${before.toISOString()}`);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const auditJobs = [auditRetentionJob];
/** Its crontab lines. */
export const auditCrontab: string[] = [`23 4 * * * ${auditRetentionJob.name} ?max=3`];
