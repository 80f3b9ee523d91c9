import { isUuid } from '../lib/ids.js';
import type { TaskFactory } from '../worker/tasks.js';
import type { JobHelpers } from 'graphile-worker';
import type { Deps } from '../deps.js';
import { dispatchEvent, failStuck, resume, runStep, type ResumeOutcome } from './engine.js';

/**
 * Runs `work`; when it throws on the job's last attempt, the execution is FAILED with the error
 * (instead of standing RUNNING or WAITING for ever) and the job ends.
 */
async function lastAttemptFails(deps: Deps, helpers: JobHelpers, executionId: string, stepId: string, work: () => Promise<unknown>) {
  try {
    await work();
  } catch (err) {
    if (helpers.job.attempts < helpers.job.max_attempts) throw err;
    helpers.logger.error(`workflow step failed for good: ${(err as Error).message}`);
    await failStuck(deps, executionId, stepId, (err as Error).message);
  }
}

/**
 * Background tasks of workflows (engine.ts): `workflows:dispatch {eventId}` (queued by recordEvent),
 * `workflows:step {executionId, stepId}`, `workflows:resume {executionId, stepId, outcome}` (delays and
 * wait timeouts, with `run_at` and a job key).
 */
export const workflowsTasks: TaskFactory = (deps) => ({
  'workflows:dispatch': async (p, helpers) => {
    if (!isUuid(p.eventId)) return helpers.logger.error(`workflows:dispatch without a valid eventId: ${JSON.stringify(p)}`);
    await dispatchEvent(deps, p.eventId);
  },
  'workflows:step': async (p, helpers) => {
    if (!isUuid(p.executionId) || !isUuid(p.stepId)) return helpers.logger.error(`workflows:step with bad ids: ${JSON.stringify(p)}`);
    await lastAttemptFails(deps, helpers, p.executionId, p.stepId, () => runStep(deps, p.executionId as string, p.stepId as string));
  },
  'workflows:resume': async (p, helpers) => {
    const outcome = p.outcome as ResumeOutcome;
    if (!isUuid(p.executionId) || !isUuid(p.stepId) || !['DELAY', 'TIMEOUT'].includes(outcome)) {
      return helpers.logger.error(`workflows:resume with a bad payload: ${JSON.stringify(p)}`);
    }
    await lastAttemptFails(deps, helpers, p.executionId, p.stepId, () => resume(deps, p.executionId as string, p.stepId as string, outcome));
  },
});

/** Crontab lines of this feature (none: delays are jobs with run_at). */
export const workflowsCrontab: string[] = [];
