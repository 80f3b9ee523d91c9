import type { JobHelpers } from 'graphile-worker';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { defineJob, lazyModule } from '../worker/jobs.js';

const engineModule = lazyModule(() => import('./engine.js'));
const chainModule = lazyModule(() => import('./chain.js'));
const stepJobModule = lazyModule(() => import('./step-job.js'));
const dispatchModule = lazyModule(() => import('./dispatch.js'));
const scheduleModule = lazyModule(() => import('./schedule.run.js'));

/**
 * Background jobs of workflows (engine.ts, chain.ts, dispatch.ts): `workflows:dispatch {eventIds}` (queued with the events,
 * events/emit.ts), `workflows:step {executionId, stepId}`, `workflows:resume {executionId, stepId,
 * outcome}` (delays and wait timeouts, with `run_at` and a job key). The engine queues steps and
 * resumes itself and records events (which queue dispatches), so `run` loads it when the job runs
 * (worker/jobs.ts).
 */

/** Attempts of a step or resume job; after the last one the execution is FAILED. */
export const STEP_JOB_ATTEMPTS = 5;

/**
 * Runs `work`; when it throws on the job's last attempt, the execution is FAILED with the error
 * (instead of standing RUNNING or WAITING for ever) and the job ends.
 */
async function lastAttemptFails(
  deps: Deps,
  helpers: JobHelpers,
  executionId: string,
  stepId: string,
  work: () => Promise<unknown>,
) {
  try {
    await work();
  } catch (err) {
    if (helpers.job.attempts < helpers.job.max_attempts) throw err;
    helpers.logger.error(`workflow step failed for good: ${(err as Error).message}`);
    const { failStuck } = await engineModule();
    await failStuck(deps, executionId, stepId, (err as Error).message);
  }
}

/** Most events one `workflows:dispatch` job carries (events/emit.ts `workflowDispatchJobs`). */
export const DISPATCH_BATCH = 50;

// `{eventId}` is the payload of jobs queued before dispatch took batches; they still run.
const dispatchPayload = z.union([
  z.object({ eventIds: z.array(z.guid()).min(1).max(DISPATCH_BATCH) }),
  z.object({ eventId: z.guid() }),
]);
const eventIdsOf = (payload: z.output<typeof dispatchPayload>) =>
  'eventIds' in payload ? payload.eventIds : [payload.eventId];

export const workflowDispatchJob = defineJob({
  name: 'workflows:dispatch',
  payload: dispatchPayload,
  maxAttempts: 10,
  // With the events of other dispatch jobs waiting in the queue (dispatch.ts dispatchCoalesced).
  run: async (deps, payload, helpers) => {
    const { dispatchCoalesced } = await dispatchModule();
    await dispatchCoalesced(deps, eventIdsOf(payload), {
      task: workflowDispatchJob.name,
      jobId: helpers.job.id,
      eventIds: (p) => {
        const parsed = dispatchPayload.safeParse(p);
        return parsed.success ? eventIdsOf(parsed.data) : null;
      },
    });
  },
});

export const workflowStepJob = defineJob({
  name: 'workflows:step',
  payload: z.object({ executionId: z.guid(), stepId: z.guid() }),
  maxAttempts: STEP_JOB_ATTEMPTS,
  run: async (deps, { executionId, stepId }, helpers) => {
    const { runStep } = await stepJobModule();
    await lastAttemptFails(deps, helpers, executionId, stepId, () => runStep(deps, executionId, stepId));
  },
});

export const workflowResumeJob = defineJob({
  name: 'workflows:resume',
  // An EVENT resumption happens in the dispatch job, never through this one.
  payload: z.object({ executionId: z.guid(), stepId: z.guid(), outcome: z.enum(['DELAY', 'TIMEOUT']) }),
  maxAttempts: STEP_JOB_ATTEMPTS,
  run: async (deps, { executionId, stepId, outcome }, helpers) => {
    const { resume } = await chainModule();
    await lastAttemptFails(deps, helpers, executionId, stepId, () => resume(deps, { executionId, stepId, outcome }));
  },
});

/**
 * `workflows:schedule` (cron, every minute): the due ticks of SCHEDULE triggers claimed and their
 * contacts started in batches (schedule.run.ts); two at once, or a retry, start nobody twice.
 */
export const workflowScheduleJob = defineJob({
  name: 'workflows:schedule',
  payload: z.object({}),
  maxAttempts: 3,
  run: async (deps, _payload, helpers) => {
    const { runSchedules } = await scheduleModule();
    const started = await runSchedules(deps);
    if (started) helpers.logger.info(`schedule triggers started ${started} executions`);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const workflowsJobs = [workflowDispatchJob, workflowStepJob, workflowResumeJob, workflowScheduleJob];

/** Crontab lines of this feature (delays are jobs with run_at; schedule triggers are read every minute). */
export const workflowsCrontab: string[] = [`* * * * * ${workflowScheduleJob.name}`];
