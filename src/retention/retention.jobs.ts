import { z } from 'zod';
import { defineJob } from '../worker/jobs.js';
import { applyRetention, projectsWithRetention } from './retention.js';

/**
 * `retention:apply` (nightly cron, 03:30 UTC): applies every project's data retention (retention.ts),
 * one project after another, in batches of short statements.
 */
export const applyRetentionJob = defineJob({
  name: 'retention:apply',
  payload: z.object({}),
  maxAttempts: 3,
  run: async (deps, _payload, helpers) => {
    for (const p of await projectsWithRetention(deps)) {
      const r = await applyRetention(deps, p.id, p.retention);
      if (r.eventsDeleted || r.emailsDeleted || r.emailContentsBlanked || r.contentsDeleted) {
        helpers.logger.info(`retention of project ${p.id}: ${JSON.stringify(r)}`);
      }
    }
  },
});

/** This feature's jobs (worker/tasks.ts). */
export const retentionJobs = [applyRetentionJob];

/** Crontab lines of this feature (Graphile Worker format). */
export const retentionCrontab: string[] = [`30 3 * * * ${applyRetentionJob.name} ?max=3`];
