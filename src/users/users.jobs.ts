import type { TaskFactory } from '../worker/tasks.js';
import { mailPasswordReset, PASSWORD_RESET_TASK } from './users.service.js';

/** Background tasks of accounts: `users:password-reset-mail {email}` (users.service.ts). */
export const usersTasks: TaskFactory = (deps) => ({
  [PASSWORD_RESET_TASK]: async (payload, helpers) => {
    if (typeof payload.email !== 'string') {
      helpers.logger.error('users:password-reset-mail without an email');
      return;
    }
    await mailPasswordReset(deps, payload.email);
  },
});
