import { z } from 'zod';
import { defineJob, lazyModule } from '../worker/jobs.js';

const fanoutModule = lazyModule(() => import('./fanout.js'));
const winnerModule = lazyModule(() => import('./winner.js'));
const figuresModule = lazyModule(() => import('./figures.js'));

/**
 * Background jobs of campaigns (fanout.ts): `campaigns:fanout {campaignId}` starts a scheduled
 * campaign (job key `campaign:<id>`, `run_at` = scheduledFor) and creates its email rows and send jobs
 * in batches; `campaigns:finalize {campaignId}` marks it SENT once every email has a final state.
 * fanout.ts queues both itself (hand-over, polling), so `run` loads it when the job runs
 * (worker/jobs.ts).
 */

export const fanoutCampaignJob = defineJob({
  name: 'campaigns:fanout',
  payload: z.object({ campaignId: z.guid() }),
  run: async (deps, { campaignId }) => {
    const { runFanout } = await fanoutModule();
    await runFanout(deps, campaignId);
  },
});

export const finalizeCampaignJob = defineJob({
  name: 'campaigns:finalize',
  payload: z.object({ campaignId: z.guid() }),
  run: async (deps, { campaignId }) => {
    const { finalize } = await fanoutModule();
    await finalize(deps, campaignId);
  },
});

/**
 * `campaigns:pick-winner {campaignId}` (key `campaign-winner:<id>`, `run_at` = start + waitMinutes):
 * an A/B/n campaign's automatic choice of its winner (winner.ts); a no-op once one was picked by hand.
 */
export const pickWinnerJob = defineJob({
  name: 'campaigns:pick-winner',
  payload: z.object({ campaignId: z.guid() }),
  run: async (deps, { campaignId }) => {
    const { pickWinnerWhenDue } = await winnerModule();
    await pickWinnerWhenDue(deps, campaignId);
  },
});

/**
 * `campaigns:figures {campaignId}` (key `campaign-figures:<id>`): counts a large campaign's figures
 * again and stores the snapshot its readers get (figures.ts).
 */
export const figuresJob = defineJob({
  name: 'campaigns:figures',
  payload: z.object({ campaignId: z.guid() }),
  run: async (deps, { campaignId }) => {
    const { refreshFigures } = await figuresModule();
    await refreshFigures(deps, campaignId);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const campaignsJobs = [fanoutCampaignJob, finalizeCampaignJob, pickWinnerJob, figuresJob];

/** Crontab lines of this feature: none (schedules are jobs with run_at). */
export const campaignsCrontab: string[] = [];
