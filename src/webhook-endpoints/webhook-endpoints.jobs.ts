import { z } from 'zod';
import { defineJob, lazyModule } from '../worker/jobs.js';

const deliverModule = lazyModule(() => import('./deliver.js'));

/**
 * `webhooks:deliver {deliveryId}`: one attempt of one event webhook delivery (deliver.ts). Queued by
 * fanout.ts in the event's own statement, in the endpoint's Graphile queue (one attempt at a time per
 * endpoint, in order). A failed attempt schedules the next one itself, by the service's own backoff
 * schedule, as a new job; Graphile's retries (`maxAttempts`) only cover a worker that died mid-job.
 */
export const webhookDeliverJob = defineJob({
  name: 'webhooks:deliver',
  payload: z.object({ deliveryId: z.guid() }),
  maxAttempts: 3,
  run: async (deps, { deliveryId }) => {
    const { deliver } = await deliverModule();
    await deliver(deps, deliveryId);
  },
});

/** `webhooks:disabled-mail {endpointId}`: tells the project's OWNERs and ADMINs that an endpoint was disabled. */
export const webhookDisabledMailJob = defineJob({
  name: 'webhooks:disabled-mail',
  payload: z.object({ endpointId: z.guid() }),
  maxAttempts: 5,
  run: async (deps, { endpointId }) => {
    const { mailEndpointDisabled } = await deliverModule();
    await mailEndpointDisabled(deps, endpointId);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const webhookEndpointsJobs = [webhookDeliverJob, webhookDisabledMailJob];
