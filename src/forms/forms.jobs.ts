import { z } from 'zod';
import { defineJob } from '../worker/jobs.js';

/**
 * `forms:purge-signups` (hourly cron): deletes double opt-in sign-ups never confirmed whose link has
 * expired (signup.ts). Their contacts stay (created unsubscribed, or as they were); a link opened
 * later still shows the expired page, which its token alone decides.
 */
export const purgeSignupsJob = defineJob({
  name: 'forms:purge-signups',
  payload: z.object({}),
  run: async (deps, _payload, helpers) => {
    const { purgeExpiredSignups } = await import('./signup.js');
    const n = await purgeExpiredSignups(deps.db, deps.clock.now());
    if (n) helpers.logger.info(`purged ${n} expired form sign-ups`);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const formsJobs = [purgeSignupsJob];
/** Its crontab lines. */
export const formsCrontab: string[] = [`17 * * * * ${purgeSignupsJob.name} ?max=3`];
