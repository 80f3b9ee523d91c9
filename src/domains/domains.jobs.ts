import type { TaskFactory } from '../worker/tasks.js';
import { recheckPendingDomains } from './domains.service.js';

/**
 * Background tasks of sender domains: `domains:recheck`, the 5-minute re-check of pending domains.
 * Checking a domain twice is harmless: each check just stores what DNS says now.
 */
export const domainsTasks: TaskFactory = (deps) => ({
  'domains:recheck': async (_payload, helpers) => {
    const { checked, verified } = await recheckPendingDomains(deps);
    if (checked) helpers.logger.info(`domains:recheck checked ${checked} pending domains, ${verified} now verified`);
  },
});

/** Crontab lines of this feature (Graphile Worker format). */
export const domainsCrontab: string[] = ['*/5 * * * * domains:recheck'];
