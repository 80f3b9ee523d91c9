import { isUuid } from '../lib/ids.js';
import type { TaskFactory } from '../worker/tasks.js';
import { finalize, runFanout } from './fanout.js';

/**
 * Background tasks of campaigns (fanout.ts): `campaigns:fanout {campaignId}` starts a scheduled
 * campaign (job key `campaign:<id>`, `run_at` = scheduledFor) and creates its email rows and send jobs
 * in batches; `campaigns:finalize {campaignId}` marks it SENT once every email has a final state.
 */
export const campaignsTasks: TaskFactory = (deps) => ({
  'campaigns:fanout': async (payload, helpers) => {
    if (!isUuid(payload.campaignId)) return helpers.logger.error(`campaigns:fanout without a campaignId: ${JSON.stringify(payload)}`);
    await runFanout(deps, payload.campaignId);
  },
  'campaigns:finalize': async (payload, helpers) => {
    if (!isUuid(payload.campaignId)) return helpers.logger.error(`campaigns:finalize without a campaignId: ${JSON.stringify(payload)}`);
    await finalize(deps, payload.campaignId);
  },
});

/** Crontab lines of this feature: none (schedules are jobs with run_at). */
export const campaignsCrontab: string[] = [];
