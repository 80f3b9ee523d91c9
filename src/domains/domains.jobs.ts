import { z } from 'zod';
import { defineJob } from '../worker/jobs.js';
import { recheckPendingDomains } from './domains.service.js';

/**
 * `domains:recheck`, the 5-minute re-check of pending sender domains. Checking a domain twice is
 * harmless: each check just stores what DNS says now.
 */
export const recheckDomainsJob = defineJob({
  name: 'domains:recheck',
  payload: z.object({}),
  run: async (deps, _payload, helpers) => {
    const { checked, verified } = await recheckPendingDomains(deps);
    if (checked) helpers.logger.info(`domains:recheck checked ${checked} pending domains, ${verified} now verified`);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const domainsJobs = [recheckDomainsJob];

/** Crontab lines of this feature (Graphile Worker format). */
export const domainsCrontab: string[] = [`*/5 * * * * ${recheckDomainsJob.name}`];
