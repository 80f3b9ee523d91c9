import { z } from 'zod';
import { defineJob } from '../worker/jobs.js';

/**
 * `users:password-reset-mail {email}` (users.service.ts requestPasswordReset): the payload is the
 * address itself, as there may be no account to name by id. The service queues it, so `run` loads
 * the service when the job runs (worker/jobs.ts).
 */
export const passwordResetMailJob = defineJob({
  name: 'users:password-reset-mail',
  payload: z.object({ email: z.string() }),
  maxAttempts: 5,
  run: async (deps, { email }) => {
    const { mailPasswordReset } = await import('./users.service.js');
    await mailPasswordReset(deps, email);
  },
});

/** `users:purge-sessions` (daily cron): deletes sessions that can never be live again (sessions.ts). */
export const purgeSessionsJob = defineJob({
  name: 'users:purge-sessions',
  payload: z.object({}),
  run: async (deps, _payload, helpers) => {
    const { purgeDeadSessions } = await import('./sessions.js');
    const n = await purgeDeadSessions(deps, deps.clock.now());
    if (n) helpers.logger.info(`purged ${n} ended sessions`);
  },
});

/**
 * `users:purge-challenges` (hourly cron): deletes expired sign-in challenges (oidc.ts), so that sign-ins
 * started and never finished, by anyone on the internet, do not pile up.
 */
export const purgeChallengesJob = defineJob({
  name: 'users:purge-challenges',
  payload: z.object({}),
  run: async (deps, _payload, helpers) => {
    const { purgeExpiredChallenges } = await import('./sign-in/oidc.js');
    const n = await purgeExpiredChallenges(deps, deps.clock.now());
    if (n) helpers.logger.info(`purged ${n} expired sign-in challenges`);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const usersJobs = [passwordResetMailJob, purgeSessionsJob, purgeChallengesJob];
/** Its crontab lines. */
export const usersCrontab: string[] = [
  `41 4 * * * ${purgeSessionsJob.name} ?max=3`,
  `17 * * * * ${purgeChallengesJob.name} ?max=3`,
];
