import { isUuid } from '../lib/ids.js';
import type { TaskFactory } from '../worker/tasks.js';
import { deliverBatch, deliverEmail } from './deliver.js';

/**
 * Background tasks of sending: `emails:send {emailId}` renders, signs and hands one email to the
 * transport (deliver.ts). Other features (campaigns, workflows) queue it for their own rows too.
 * `emails:send-batch {emailIds}` does the same for up to {@link SEND_BATCH_SIZE} bulk emails at once
 * (campaign fan-out): one claim statement and shared outcome writes instead of a job per mail.
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
  'emails:send-batch': async (payload, helpers) => {
    const ids = payload.emailIds;
    if (!Array.isArray(ids) || !ids.length || ids.length > SEND_BATCH_SIZE || !ids.every(isUuid)) {
      helpers.logger.error(`emails:send-batch without a valid emailIds list: ${JSON.stringify(payload).slice(0, 200)}`);
      return;
    }
    await deliverBatch(deps, ids);
  },
});

/** Most emails one `emails:send-batch` job carries. */
export const SEND_BATCH_SIZE = 50;

/** Crontab lines of this feature (Graphile Worker format). */
export const emailsCrontab: string[] = [];
