import { isUuid } from '../lib/ids.js';
import type { TaskFactory } from '../worker/tasks.js';
import { dispatchEvent, resume, runStep, type ResumeOutcome } from './engine.js';

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
    await runStep(deps, p.executionId, p.stepId);
  },
  'workflows:resume': async (p, helpers) => {
    const outcome = p.outcome as ResumeOutcome;
    if (!isUuid(p.executionId) || !isUuid(p.stepId) || !['DELAY', 'TIMEOUT'].includes(outcome)) {
      return helpers.logger.error(`workflows:resume with a bad payload: ${JSON.stringify(p)}`);
    }
    await resume(deps, p.executionId, p.stepId, outcome);
  },
});

/** Crontab lines of this feature (none: delays are jobs with run_at). */
export const workflowsCrontab: string[] = [];
