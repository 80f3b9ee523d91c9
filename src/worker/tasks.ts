import type { JobHelpers, Task } from 'graphile-worker';
import type { Deps } from '../deps.js';
import { campaignsCrontab, campaignsTasks } from '../campaigns/campaigns.jobs.js';
import { contactsCrontab, contactsTasks } from '../contacts/contacts.jobs.js';
import { domainsCrontab, domainsTasks } from '../domains/domains.jobs.js';
import { emailsCrontab, emailsTasks } from '../emails/emails.jobs.js';
import { purgeExpiredIdempotencyKeys } from '../http/idempotency.js';
import { segmentsCrontab, segmentsTasks } from '../segments/segments.jobs.js';
import { usersTasks } from '../users/users.jobs.js';
import { invitationsTasks } from '../invitations/invitations.jobs.js';
import { workflowsCrontab, workflowsTasks } from '../workflows/workflows.jobs.js';

/** A job handler: payload (ids only) and Graphile's helpers; throws to be retried. */
export type JobHandler = (payload: Record<string, unknown>, helpers: JobHelpers) => Promise<void>;

/** Each feature contributes `name → handler` entries through a function of the deps. */
export type TaskFactory = (deps: Deps) => Record<string, JobHandler>;

const coreTasks: TaskFactory = (deps) => ({
  'cleanup:idempotency-keys': async (_p, helpers) => {
    const n = await purgeExpiredIdempotencyKeys(deps);
    if (n) helpers.logger.info(`purged ${n} expired idempotency keys`);
  },
});

/** Every feature's task factories; add a feature's `*.jobs.ts` factory here. */
export const taskFactories: TaskFactory[] = [coreTasks, domainsTasks, emailsTasks, contactsTasks, segmentsTasks, campaignsTasks, workflowsTasks, usersTasks, invitationsTasks];

/**
 * The Graphile Worker crontab: clean-ups and periodic checks.
 * Format: `m h dom mon dow task ?opts payload`.
 */
export const crontabLines: string[] = [
  '0 * * * * cleanup:idempotency-keys ?max=3',
  ...domainsCrontab,
  ...emailsCrontab,
  ...contactsCrontab,
  ...segmentsCrontab,
  ...campaignsCrontab,
  ...workflowsCrontab,
];

/**
 * The task list of {@link taskFactories} for Graphile Worker. `before` runs ahead of every job (the
 * runner waits there while its liveness locks are lost).
 */
export function buildTaskList(deps: Deps, before: () => Promise<void> = async () => undefined): Record<string, Task> {
  const list: Record<string, Task> = {};
  for (const factory of taskFactories) {
    for (const [name, handler] of Object.entries(factory(deps))) {
      list[name] = async (payload, helpers) => {
        await before();
        const timer = deps.metrics.jobDuration.startTimer({ task: name });
        try {
          await handler((payload ?? {}) as Record<string, unknown>, helpers);
          timer({ outcome: 'success' });
        } catch (err) {
          timer({ outcome: 'error' });
          throw err;
        }
      };
    }
  }
  return list;
}
