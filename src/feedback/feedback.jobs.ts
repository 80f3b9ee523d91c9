import { z } from 'zod';
import { defineJob } from '../worker/jobs.js';
import { purgeSnsNotifications } from './feedback.repo.js';
import { SNS_MAX_AGE_MS } from './sns/sns.verify.js';

/** How long a processed SNS notification id is kept: a day past the oldest notification accepted. */
export const SNS_NOTIFICATION_RETENTION_MS = SNS_MAX_AGE_MS + 24 * 3600_000;

/**
 * `feedback:purge-sns` (daily cron): forgets the ids of SNS notifications processed more than
 * {@link SNS_NOTIFICATION_RETENTION_MS} ago. A replay of one is still refused, by its age.
 */
export const purgeSnsNotificationsJob = defineJob({
  name: 'feedback:purge-sns',
  payload: z.object({}),
  run: async (deps, _payload, helpers) => {
    const n = await purgeSnsNotifications(
      deps.db,
      new Date(deps.clock.now().getTime() - SNS_NOTIFICATION_RETENTION_MS),
    );
    if (n) helpers.logger.info(`purged ${n} processed SNS notification ids`);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const feedbackJobs = [purgeSnsNotificationsJob];

/** Crontab lines of this feature (Graphile Worker format). */
export const feedbackCrontab: string[] = [`17 3 * * * ${purgeSnsNotificationsJob.name} ?max=3`];
