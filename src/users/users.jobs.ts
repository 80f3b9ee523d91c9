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

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const usersJobs = [passwordResetMailJob];
