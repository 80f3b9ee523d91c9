import { z } from 'zod';
import { defineJob, lazyModule } from '../worker/jobs.js';

const deliverModule = lazyModule(() => import('./delivery/deliver.js'));

/**
 * Background jobs of sending (deliver.ts), queued by other features (campaigns, workflows, template
 * tests) for their own rows too:
 * - `emails:send {emailId}` renders, signs and hands one email to the transport;
 * - `emails:send-batch {emailIds}` does the same for up to {@link SEND_BATCH_SIZE} bulk emails at once
 *   (campaign fan-out): one claim statement and shared outcome writes instead of a job per mail.
 * deliver.ts queues `emails:send` itself (a batch's temporary failure is retried alone), so `run`
 * loads it when the job runs (worker/jobs.ts).
 */

/** Delivery attempts of one email before it is FAILED (Graphile Worker's backoff: e^n seconds). */
export const DELIVERY_MAX_ATTEMPTS = 10;

/**
 * Graphile priority of mail someone is waiting for (a `/v1/send`, a test send, a workflow step's
 * mail): Graphile takes jobs lowest priority first, then by `run_at`, so these go ahead of queued
 * campaign batches (0) and of fan-out (−1) however much bulk mail is waiting.
 */
export const TRANSACTIONAL_PRIORITY = -2;

/** Most emails one `emails:send-batch` job carries. */
export const SEND_BATCH_SIZE = 50;

export const sendEmailJob = defineJob({
  name: 'emails:send',
  payload: z.object({ emailId: z.guid() }),
  maxAttempts: DELIVERY_MAX_ATTEMPTS,
  run: async (deps, { emailId }, helpers) => {
    const { deliverEmail } = await deliverModule();
    await deliverEmail(deps, emailId, { attempt: helpers.job.attempts, maxAttempts: helpers.job.max_attempts });
  },
});

export const sendBatchJob = defineJob({
  name: 'emails:send-batch',
  payload: z.object({ emailIds: z.array(z.guid()).min(1).max(SEND_BATCH_SIZE) }),
  maxAttempts: DELIVERY_MAX_ATTEMPTS,
  run: async (deps, { emailIds }) => {
    const { deliverBatch } = await deliverModule();
    await deliverBatch(deps, emailIds);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const emailsJobs = [sendEmailJob, sendBatchJob];

/** Crontab lines of this feature (Graphile Worker format). */
export const emailsCrontab: string[] = [];
