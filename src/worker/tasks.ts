import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { auditCrontab, auditJobs } from '../audit/audit.jobs.js';
import { campaignsCrontab, campaignsJobs } from '../campaigns/campaigns.jobs.js';
import { contactsCrontab, contactsJobs } from '../contacts/contacts.jobs.js';
import { domainsCrontab, domainsJobs } from '../domains/domains.jobs.js';
import { emailsCrontab, emailsJobs } from '../emails/emails.jobs.js';
import { exportsCrontab, exportsJobs } from '../exports/exports.jobs.js';
import { retentionCrontab, retentionJobs } from '../retention/retention.jobs.js';
import { feedbackCrontab, feedbackJobs } from '../feedback/feedback.jobs.js';
import { formsCrontab, formsJobs } from '../forms/forms.jobs.js';
import { purgeExpiredIdempotencyKeys } from '../http/idempotency.js';
import { segmentsCrontab, segmentsJobs } from '../segments/segments.jobs.js';
import { usersCrontab, usersJobs } from '../users/users.jobs.js';
import { invitationsJobs } from '../invitations/invitations.jobs.js';
import { workflowsCrontab, workflowsJobs } from '../workflows/workflows.jobs.js';
import { webhookEndpointsJobs } from '../webhook-endpoints/webhook-endpoints.jobs.js';
import { defineJob, runJob, type JobDefinition } from './jobs.js';

/** `cleanup:idempotency-keys` (hourly cron): deletes expired idempotency keys. */
export const cleanupIdempotencyKeysJob = defineJob({
  name: 'cleanup:idempotency-keys',
  payload: z.object({}),
  run: async (deps, _payload, helpers) => {
    const n = await purgeExpiredIdempotencyKeys(deps);
    if (n) helpers.logger.info(`purged ${n} expired idempotency keys`);
  },
});

/**
 * Every job the worker runs: each feature's `*.jobs.ts` list. A job missing here is never run (its
 * rows wait in the queue), so add a new feature's list here.
 */
export const jobRegistry: readonly JobDefinition<unknown>[] = [
  cleanupIdempotencyKeysJob,
  ...domainsJobs,
  ...emailsJobs,
  ...contactsJobs,
  ...segmentsJobs,
  ...campaignsJobs,
  ...workflowsJobs,
  ...usersJobs,
  ...invitationsJobs,
  ...webhookEndpointsJobs,
  ...feedbackJobs,
  ...formsJobs,
  ...exportsJobs,
  ...retentionJobs,
  ...auditJobs,
];

/**
 * The Graphile Worker crontab: clean-ups and periodic checks.
 * Format: `m h dom mon dow task ?opts payload`.
 */
export const crontabLines: string[] = [
  `0 * * * * ${cleanupIdempotencyKeysJob.name} ?max=3`,
  ...domainsCrontab,
  ...emailsCrontab,
  ...contactsCrontab,
  ...segmentsCrontab,
  ...campaignsCrontab,
  ...workflowsCrontab,
  ...feedbackCrontab,
  ...usersCrontab,
  ...formsCrontab,
  ...exportsCrontab,
  ...retentionCrontab,
  ...auditCrontab,
];

/**
 * The Graphile task list of {@link jobRegistry}. `before` runs ahead of every job (the runner waits
 * there while its liveness locks are lost).
 */
export function buildTaskList(deps: Deps, before: () => Promise<void> = async () => undefined): Record<string, Task> {
  return taskListOf(jobRegistry, deps, before);
}

/**
 * The Graphile task list of `jobs`: each task waits for `before`, parses the payload and runs the job
 * (jobs.ts `runJob`), and records its duration in `deps.metrics.jobDuration` by task and outcome
 * (`success`, also for a payload refused and logged; `error` when it throws, then rethrown for
 * Graphile to retry).
 * @throws Error when two definitions have the same name (one would silently shadow the other).
 */
export function taskListOf(
  jobs: readonly JobDefinition<unknown>[],
  deps: Deps,
  before: () => Promise<void> = async () => undefined,
): Record<string, Task> {
  const list: Record<string, Task> = {};
  for (const job of jobs) {
    if (Object.hasOwn(list, job.name)) throw new Error(`Two job definitions are named ${job.name}`);
    list[job.name] = async (payload, helpers) => {
      await before();
      const timer = deps.metrics.jobDuration.startTimer({ task: job.name });
      try {
        await runJob(job, deps, payload, helpers);
        timer({ outcome: 'success' });
      } catch (err) {
        timer({ outcome: 'error' });
        throw err;
      }
    };
  }
  return list;
}
