import { isUuid } from '../lib/ids.js';
import type { TaskFactory } from '../worker/tasks.js';
import { deliverEmail } from './deliver.js';

/**
 * Background tasks of sending: `emails:send {emailId}` renders, signs and hands one email to the
 * transport (deliver.ts). Other features (campaigns, workflows) queue it for their own rows too.
 */
export const emailsTasks: TaskFactory = (deps) => ({
  'emails:send': async (payload, helpers) => {
    const emailId = payload.emailId;
    if (!isUuid(emailId)) {
      helpers.logger.error(`emails:send without a valid emailId: ${JSON.stringify(payload)}`);
      return;
    }
    await deliverEmail(deps, emailId, { attempt: helpers.job.attempts, maxAttempts: helpers.job.max_attempts });
  },
});

/** Crontab lines of this feature (Graphile Worker format). */
export const emailsCrontab: string[] = [];
