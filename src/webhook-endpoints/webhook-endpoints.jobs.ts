import { z } from 'zod';
import { defineJob, lazyModule } from '../worker/jobs.js';

const mailModule = lazyModule(() => import('./disabled-mail.js'));

/**
 * `webhooks:deliver {deliveryId}`: the one-job-per-attempt delivery of earlier versions. Deliveries
 * are now attempted by the worker's dispatcher (dispatch/dispatcher.ts) straight from their PENDING
 * rows, so a job of this kind left in the queue by an upgrade has nothing to do: its delivery is
 * still PENDING and the dispatcher attempts it.
 */
export const webhookDeliverJob = defineJob({
  name: 'webhooks:deliver',
  payload: z.object({ deliveryId: z.guid() }),
  maxAttempts: 1,
  run: async () => undefined,
});

/** `webhooks:disabled-mail {endpointId}`: tells the project's OWNERs and ADMINs that an endpoint was disabled. */
export const webhookDisabledMailJob = defineJob({
  name: 'webhooks:disabled-mail',
  payload: z.object({ endpointId: z.guid() }),
  maxAttempts: 5,
  run: async (deps, { endpointId }) => {
    const { mailEndpointDisabled } = await mailModule();
    await mailEndpointDisabled(deps, endpointId);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const webhookEndpointsJobs = [webhookDeliverJob, webhookDisabledMailJob];
