import type { Deps } from '../deps.js';
import { AppError, notFound } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import { removeJob } from '../worker/graphile.js';
import type { Tx } from '../db/tx.js';
import * as repo from './campaigns.repo.js';
import { hasWinnerPhase, isExperiment } from './experiment.js';
import { leaderOf, variantFigures } from './experiment.stats.js';
import { startWinnerPhase, winnerJobKey } from './fanout.js';

/**
 * Choosing the winner of an A/B/n campaign, by hand (`POST /campaigns/:id/winner`) or when its wait
 * is over (the `campaigns:pick-winner` job). Either way under the campaign's row lock, once: the
 * first choice stands. A winner chosen while the test mail is still going out waits for it to finish
 * (fanout.ts `endTestPhase`); one chosen while waiting starts the winner phase at once.
 */

/** Records `key` as the winner of the locked campaign `c` and starts its phase if the test is out. */
async function setWinner(deps: Deps, tx: Tx, c: repo.CampaignRow, key: string, by: 'auto' | 'manual') {
  const row = await repo.updateCampaign(tx, c.projectId, c.id, {
    winnerKey: key,
    winnerChosenAt: deps.clock.now(),
    winnerChosenBy: by,
    updatedAt: deps.clock.now(),
  });
  await removeJob(tx, winnerJobKey(c.id));
  if (row!.experimentPhase === 'waiting') await startWinnerPhase(tx, row!);
  return row!;
}

/** The `campaigns:pick-winner` job: the leader on the metric wins (ties: the earliest variant). */
export async function pickWinnerWhenDue(deps: Deps, campaignId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const c = await repo.lockCampaignById(tx, campaignId);
    if (!c || c.status !== 'SENDING' || !hasWinnerPhase(c) || c.winnerKey) return;
    const leader = leaderOf(await variantFigures(tx, c), c.experiment!.metric);
    const row = await setWinner(deps, tx, c, leader?.key ?? c.variants![0].key, 'auto');
    deps.log.info({ campaignId, winner: row.winnerKey }, 'A/B test winner chosen');
  });
}

/**
 * `POST /campaigns/:id/winner {key}`: picks the winner by hand, at any time while the campaign is
 * SENDING and none was chosen yet.
 * @throws AppError 404 unknown campaign; 409 not an A/B test, a pure split (no winner phase), not
 * sending (DRAFT, SCHEDULED, SENT, CANCELLED) or a winner already chosen; 422 a key that is not one of
 * its variants.
 */
export async function pickWinner(deps: Deps, projectId: string, id: string, key: string): Promise<repo.CampaignRow> {
  return deps.db.transaction(async (tx) => {
    const c = isUuid(id) ? await repo.lockCampaign(tx, projectId, id) : undefined;
    if (!c) throw notFound('Campaign');
    if (!isExperiment(c)) throw new AppError('CONFLICT', 'This campaign is not an A/B test: it has no variants');
    if (!hasWinnerPhase(c))
      throw new AppError(
        'CONFLICT',
        'This A/B test is a pure split (testPercent 100): every variant went out, there is no winner to send',
      );
    if (c.status !== 'SENDING')
      throw new AppError(
        'CONFLICT',
        c.status === 'DRAFT' || c.status === 'SCHEDULED'
          ? 'The test has not started: a winner can be picked once the campaign is being sent'
          : `A ${c.status} campaign can no longer get a winner`,
      );
    if (c.winnerKey)
      throw new AppError(
        'CONFLICT',
        `Variant ${c.winnerKey} was already chosen as the winner (${c.winnerChosenBy === 'auto' ? 'automatically' : 'by hand'})`,
      );
    if (!c.variants!.some((v) => v.key === key))
      throw new AppError('VALIDATION_ERROR', `No variant "${key}" in this campaign`, {
        errors: [
          {
            field: 'key',
            code: 'invalid_value',
            message: `Use one of ${c.variants!.map((v) => v.key).join(', ')}`,
            received: key,
          },
        ],
      });
    return setWinner(deps, tx, c, key, 'manual');
  });
}
