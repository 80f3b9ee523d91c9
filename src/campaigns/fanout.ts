import { sql } from 'drizzle-orm';
import { assertWithinLimit } from '../billing/billing.service.js';
import type { Deps } from '../deps.js';
import { assertVerifiedSender } from '../domains/verified.js';
import { AppError } from '../http/errors.js';
import { insertContent } from '../emails/emails.repo.js';
import { SEND_BATCH_SIZE } from '../emails/emails.jobs.js';
import { batchJobSpecs, queueEmailsSql, ratedJobSpecs } from '../emails/queue/queue.js';
import { cancelPendingOfCampaign } from '../emails/delivery/outcomes.js';
import { marketingPause } from '../projects/health.js';
import { sqlUuidV7 } from '../db/uuid-sql.js';
// `enqueue` is startSending's flag here.
import { campaignWebhookEvent, queueWebhookDeliveries } from '../webhook-endpoints/fanout.js';
import { addJobsCall, removeJob } from '../worker/graphile.js';
import { enqueue as enqueueJob } from '../worker/jobs.js';
import { countRecipients, recipientFilter } from './audience.js';
import { fanoutCampaignJob, finalizeCampaignJob, pickWinnerJob } from './campaigns.jobs.js';
import {
  drawGroups,
  experimentBatch,
  hasWinnerPhase,
  isExperiment,
  sendersOf,
  storeVariantContents,
} from './experiment.js';
import * as repo from './campaigns.repo.js';
import { pickLocaleSql, translationContentId } from '../content/translations.js';
import type { StoredTranslations } from '../content/stored.js';
import type { Tx } from '../db/tx.js';
import { timeZoneOf } from '../projects/projects.repo.js';
import { dueJobSpecs, dueSql, hasDueMoments, zoneNamesSql } from './delivery.js';

/**
 * Sending a campaign.
 *
 * 1. Start (`POST /campaigns/:id/send` now, or the scheduled `campaigns:fanout` job): the row goes to
 *    SENDING, `sentAt` = start time, `totalRecipients` = the audience counted at that instant.
 * 2. Fan-out (`campaigns:fanout`): batches of {@link BATCH} contacts in contact-id order after
 *    `fanout_checkpoint`, each ONE statement that inserts the `emails` rows and their send jobs
 *    (Graphile's `add_jobs`), in the transaction that moves the checkpoint. A crash at any
 *    point resumes from the last committed checkpoint; `ON CONFLICT DO NOTHING` on the unique
 *    (campaign, contact) index makes a replayed batch harmless. When a batch comes back short the
 *    checkpoint becomes {@link FANOUT_DONE}.
 * 3. Delivery (src/emails/delivery/deliver.ts): `emails:send-batch` jobs of up to SEND_BATCH_SIZE rows, or one
 *    `emails:send` job per row when a rate is set (below). The claim token and the hand-off mark
 *    written just before the final "." of DATA send each row once; a worker killed mid-send is found
 *    through its liveness lock (src/worker/liveness.ts) and its jobs run again within seconds: only a
 *    mail caught between its dot and the record of the reply goes twice, with the same Message-ID
 *    (campaigns.crash.test.ts).
 * 4. Finish (`campaigns:finalize`): polls until no email of the campaign is PENDING or SENDING, then SENT.
 *
 * Fair share between campaigns (least attained service): Graphile Worker takes due jobs by priority,
 * then `run_at`. The k-th batch job of a campaign gets priority k (transactional mail is at -2 and
 * fan-out at -1, ahead of all of them). Two campaigns sending at once therefore alternate batch by
 * batch, and one that starts while another is half-way goes first until it has sent as many batches
 * as the other: a small project's campaign never waits behind a large one's 100,000 mails. Priorities
 * stop at {@link MAX_BATCH_PRIORITY} (Graphile's smallint), past which batches go in `run_at` order.
 *
 * Pause: at a critical bounce or complaint rate (projects/health.ts) the start and each fan-out batch
 * wait, and the fan-out job comes back every {@link PAUSED_RETRY_MS} until an admin acknowledges.
 *
 * Throttle (`EMAIL_RATE_LIMIT_PER_SECOND`, per project): the send jobs of each batch get `run_at`
 * spread at that rate behind the project's campaign mail still waiting (PENDING), so the queue
 * drains at the configured speed whatever the number of workers. Transactional mail is not delayed.
 */

/** Contacts per fan-out statement. */
export const BATCH = 1000;
/** `fanout_checkpoint` once every email row exists (above every UUID). */
export const FANOUT_DONE = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
/** A fan-out job hands over to a fresh job after this long, so a worker slot is not held for minutes. */
const TIME_BUDGET_MS = 10_000;
/** While sending is paused (projects/health.ts), the fan-out looks again this often. */
export const PAUSED_RETRY_MS = 60_000;
/** Pause between two finalize checks while mail is still being delivered. */
export const FINALIZE_POLL_MS = 1_000;

/** Job key of the scheduled start and of the fan-out continuation: one per campaign. */
export const fanoutKey = (campaignId: string) => `campaign:${campaignId}`;
export const finalizeKey = (campaignId: string) => `campaign-finalize:${campaignId}`;
/** Job key of an A/B/n campaign's automatic choice of its winner (experiment.ts, winner.ts). */
export const winnerJobKey = (campaignId: string) => `campaign-winner:${campaignId}`;
/** The highest job priority Graphile Worker stores (a smallint): batches past it share it. */
export const MAX_BATCH_PRIORITY = 32767;
/** Fan-out runs before the send jobs it creates, so a large audience is materialised quickly. */
const FANOUT_PRIORITY = -1;

/**
 * Moves a locked campaign to SENDING now: sentAt, totalRecipients (the frozen audience), checkpoint
 * reset. With `enqueue`, adds the fan-out job (replacing a scheduled one by its key) in `tx`.
 * @throws AppError 422 when the audience no longer compiles (its segment was deleted).
 */
export async function startSending(
  deps: Deps,
  tx: Tx,
  c: repo.CampaignRow,
  now: Date,
  enqueue: boolean,
): Promise<repo.CampaignRow> {
  // An A/B test's holdout is part of the audience but gets no mail (the same rounding as drawGroups).
  const audience = await countRecipients(tx, c, now);
  const total = isExperiment(c) ? audience - Math.round((audience * c.experiment!.holdoutPercent) / 100) : audience;
  // The body is stored once, under the campaign's id, and every email of the send refers to it (the
  // campaign cannot be edited from now on, but its row may be deleted while mail is still queued).
  await insertContent(tx, { id: c.id, projectId: c.projectId, body: c.body, createdAt: now });
  await storeVariantContents(tx, c, now);
  for (const [tag, t] of Object.entries(c.translations ?? {}))
    await insertContent(tx, {
      id: translationContentId(c.id, tag),
      projectId: c.projectId,
      body: t.body,
      createdAt: now,
    });
  const row = await repo.updateCampaign(tx, c.projectId, c.id, {
    status: 'SENDING',
    sentAt: now,
    totalRecipients: total,
    fanoutCheckpoint: null,
    deliveryEndsAt: null,
    updatedAt: now,
  });
  await queueWebhookDeliveries(tx, c.projectId, [campaignWebhookEvent('campaign.sending', row!, now)]);
  if (enqueue)
    await enqueueJob(
      tx,
      fanoutCampaignJob,
      { campaignId: c.id },
      { jobKey: fanoutKey(c.id), priority: FANOUT_PRIORITY },
    );
  return row!;
}

type BatchOutcome = 'more' | 'done' | 'stopped';

/**
 * The fan-out's columns that follow the contact's language (`b.locale`, its raw `data->>'locale'`):
 * the picked translation's tag, subject, sender name and body, else the campaign's own.
 */
function translatedValues(c: repo.CampaignRow, tr: StoredTranslations) {
  const tags = Object.keys(tr);
  const pick = pickLocaleSql(sql`b.locale`, tags);
  const by = (f: (tag: string) => unknown, fallback: unknown) =>
    sql`(case ${pick} ${sql.join(
      tags.map((t) => sql`when ${t} then ${f(t)}`),
      sql` `,
    )} else ${fallback} end)`;
  return {
    locale: pick,
    subject: by((t) => tr[t].subject, c.subject),
    fromName: by((t) => tr[t].fromName ?? c.fromName, c.fromName),
    contentId: sql`${by((t) => translationContentId(c.id, t), c.id)}::uuid`,
  };
}

/**
 * What the request checks are worth at the time a scheduled campaign fires, since they may no longer
 * hold: the sender domain still verified, the audience still compiles (its segment may be gone), and
 * the monthly campaign cap still leaves room for the audience as it is now. Run in a savepoint, so a
 * refusal leaves the transaction usable. @returns the reason to cancel, or null to go ahead.
 */
async function refusalAtFire(deps: Deps, tx: Tx, c: repo.CampaignRow, now: Date): Promise<string | null> {
  try {
    await tx.transaction(async (sp) => {
      for (const from of sendersOf(c)) await assertVerifiedSender(sp, c.projectId, from, deps);
      await assertWithinLimit(sp, c.projectId, 'campaigns', await countRecipients(sp, c, now), now);
    });
    return null;
  } catch (err) {
    if (err instanceof AppError) return `Not sent at its scheduled time: ${err.message}`;
    throw err;
  }
}

/**
 * The `campaigns:fanout` job: starts a SCHEDULED campaign whose time has come, then creates email
 * rows batch after batch until done, or hands over to a new job after {@link TIME_BUDGET_MS}.
 * Running it twice (or concurrently) is harmless: each batch locks the campaign row and reads the
 * checkpoint under that lock.
 */
export async function runFanout(deps: Deps, campaignId: string): Promise<void> {
  const started = Date.now();
  // The campaign's emails made so far, counted by the first batch of this run and carried on, so a
  // 1,000,000-recipient fan-out does not count up to 1,000,000 rows in each of its 1,000 batches.
  let prior: number | null = null;
  for (;;) {
    const handOver = Date.now() - started > TIME_BUDGET_MS;
    const batch = await fanoutBatch(deps, campaignId, handOver, prior);
    if (batch.outcome !== 'more' || handOver) return;
    prior = batch.prior;
  }
}

/**
 * One batch of a campaign's fan-out in one transaction. `prior` is how many emails of the campaign
 * exist before it, as the previous batch of the same run left it (null: counted here). A run beside it
 * (the job twice at once) makes that figure low, which only lowers the batches' priority numbers.
 */
async function fanoutBatch(
  deps: Deps,
  campaignId: string,
  handOver: boolean,
  prior: number | null,
): Promise<{ outcome: BatchOutcome; prior: number | null }> {
  const outcome = (o: BatchOutcome) => ({ outcome: o, prior: null });
  return deps.db.transaction(async (tx) => {
    let c = await repo.lockCampaignById(tx, campaignId);
    if (!c) return outcome('stopped');
    const now = deps.clock.now();
    // A critical bounce or complaint rate pauses bulk mail (projects/health.ts): the campaign keeps its
    // state (SCHEDULED, or SENDING at its checkpoint) and this job looks again later.
    if (
      (c.status === 'SCHEDULED' || (c.status === 'SENDING' && c.fanoutCheckpoint !== FANOUT_DONE)) &&
      (await marketingPause(tx, c.projectId, now))
    ) {
      deps.log.warn({ campaignId: c.id, projectId: c.projectId }, 'campaign paused: sender health is critical');
      await enqueueJob(
        tx,
        fanoutCampaignJob,
        { campaignId: c.id },
        { jobKey: fanoutKey(c.id), priority: FANOUT_PRIORITY, runAt: new Date(Date.now() + PAUSED_RETRY_MS) },
      );
      return outcome('stopped');
    }
    if (c.status === 'SCHEDULED') {
      const refused = await refusalAtFire(deps, tx, c, now);
      if (refused) {
        const row = await repo.updateCampaign(tx, c.projectId, c.id, {
          status: 'CANCELLED',
          statusReason: refused,
          updatedAt: now,
        });
        await queueWebhookDeliveries(tx, c.projectId, [campaignWebhookEvent('campaign.cancelled', row!, now)]);
        deps.log.warn(
          { campaignId: c.id, projectId: c.projectId, reason: refused },
          'scheduled campaign cancelled when it fired',
        );
        return outcome('stopped');
      }
      c = await startSending(deps, tx, c, now, false);
    }
    if (c.status !== 'SENDING' || c.fanoutCheckpoint === FANOUT_DONE) return outcome('stopped');

    const startedAt = c.sentAt ?? now;
    const where = await recipientFilter(tx, c, startedAt);
    // An A/B/n campaign draws its groups first (experiment.ts), in this batch's transaction.
    if (isExperiment(c) && !c.experimentPhase) c = await drawGroups(tx, c, where, now);
    const after = c.fanoutCheckpoint ?? '00000000-0000-0000-0000-000000000000';
    const x = isExperiment(c) ? experimentBatch(c, where, after, BATCH) : null;
    // Translations (content/translations.ts): each contact's language picks its subject, sender name
    // and body in the statement. Never with an experiment (refused at save).
    const tr = !x && c.translations && Object.keys(c.translations).length ? c.translations : null;
    const rate = deps.config.EMAIL_RATE_LIMIT_PER_SECOND;
    // Without a rate, one `emails:send-batch` job per SEND_BATCH_SIZE mails (one claim statement and
    // shared outcome writes); with one, a job per mail, each with its own run_at at that rate.
    // Batch k of the campaign (counting its emails made by earlier statements) gets priority k: see
    // "Fair share between campaigns" above.
    let jobSpecs = batchJobSpecs('ins', sql`(select n from prior) / ${SEND_BATCH_SIZE}`, MAX_BATCH_PRIORITY);
    // Send windows and local time (delivery.ts): each mail's due moment, computed here per contact;
    // the mails due at one moment share jobs run at that moment. Never with an experiment (refused).
    const delivery = !x && hasDueMoments(c.delivery) ? c.delivery : null;
    const localTime = delivery?.mode === 'local-time';
    const due = delivery
      ? dueSql(delivery, {
          start: startedAt,
          index: sql`(select n from prior) + row_number() over (order by b.id) - 1`,
          total: sql`${c.totalRecipients}::int`,
          contactZone: localTime ? sql`z.name` : sql`null::text`,
          projectZone: await timeZoneOf(tx, c.projectId),
        })
      : null;
    if (delivery) {
      jobSpecs = dueJobSpecs('ins', sql`(select n from prior) / ${SEND_BATCH_SIZE}`, MAX_BATCH_PRIORITY, now);
    } else if (rate) {
      // Campaign mail of the project still queued goes first; this batch lines up behind it.
      const q = await tx.execute<{ n: number }>(sql`select count(*)::int as n from emails
        where project_id = ${c.projectId} and campaign_id is not null and status = 'PENDING'`);
      jobSpecs = ratedJobSpecs('ins', q.rows[0].n, rate);
    }
    const priorSql =
      prior === null
        ? // The campaign's emails before this statement (every part of a WITH sees the same snapshot).
          sql`select count(*)::int as n from emails where campaign_id = ${c.id}::uuid`
        : sql`select ${prior}::int as n`;
    const r = await tx.execute<{
      n: number;
      last: string | null;
      inserted: number;
      jobs: number;
      prior: number;
      due_max: string | null;
    }>(sql`
      with prior as (${priorSql}), ${localTime ? sql`zones as materialized (${zoneNamesSql}), ` : sql``}batch as (${
        x
          ? x.batch
          : sql`select c.id, c.email${localTime ? sql`, c.data->>'timezone' as tz` : sql``}${tr ? sql`, c.data->>'locale' as locale` : sql``} from contacts c where ${where} and c.id > ${after}::uuid order by c.id limit ${BATCH}`
      }), ${x ? sql`${x.ctes}, ` : sql``}ins as (${queueEmailsSql({
        values: {
          id: sqlUuidV7(now.getTime()),
          projectId: c.projectId,
          contactId: sql`b.id`,
          toEmail: sql`b.email`,
          fromEmail: c.from,
          fromName: c.fromName,
          replyTo: c.replyTo,
          subject: c.subject,
          contentId: c.id,
          type: c.type,
          sourceType: 'CAMPAIGN',
          campaignId: c.id,
          topicId: c.topicId,
          status: 'PENDING',
          createdAt: now,
          updatedAt: now,
          ...x?.values,
          ...(tr ? translatedValues(c, tr) : {}),
          ...(due ? { dueAt: due } : {}),
        },
        from: x?.from ?? (localTime ? sql`batch b left join zones z on z.name = b.tz` : sql`batch b`),
        onConflict: 'campaign',
        jobs: 'caller',
        returning: due ? ['due_at'] : undefined,
      })}
      ), jobs as (
        select count(*)::int as n from ${addJobsCall(jobSpecs)}
      )
      select (select count(*)::int from batch) as n, (select max(id::text) from batch) as last,
        (select count(*)::int from ins) as inserted, (select n from jobs) as jobs, (select n from prior) as prior,
        ${due ? sql`(select max(due_at) from ins)` : sql`null::timestamptz`} as due_max`);
    const { n, last, inserted, due_max } = r.rows[0];
    if (due_max) {
      const dueMax = new Date(due_max);
      if (!c.deliveryEndsAt || dueMax > c.deliveryEndsAt)
        c = (await repo.updateCampaign(tx, c.projectId, c.id, { deliveryEndsAt: dueMax }))!;
    }
    if (n < BATCH && c.experimentPhase === 'test' && hasWinnerPhase(c)) {
      await endTestPhase(deps, tx, c);
      return outcome('done');
    }
    if (n < BATCH) {
      await repo.updateCampaign(tx, c.projectId, c.id, { fanoutCheckpoint: FANOUT_DONE });
      await enqueueJob(
        tx,
        finalizeCampaignJob,
        { campaignId: c.id },
        { jobKey: finalizeKey(c.id), runAt: new Date(Date.now() + FINALIZE_POLL_MS) },
      );
      return outcome('done');
    }
    await repo.updateCampaign(tx, c.projectId, c.id, { fanoutCheckpoint: last });
    if (handOver) {
      await enqueueJob(
        tx,
        fanoutCampaignJob,
        { campaignId: c.id },
        { jobKey: fanoutKey(c.id), priority: FANOUT_PRIORITY },
      );
    }
    return { outcome: 'more', prior: r.rows[0].prior + inserted };
  });
}

/**
 * The end of an A/B/n campaign's test mail: straight on to the winner phase when a winner was already
 * picked by hand, else phase "waiting" with the `campaigns:pick-winner` job at the start plus
 * `waitMinutes` (a wall-clock delay measured from now, so a test clock moves business time only).
 */
async function endTestPhase(deps: Deps, tx: Tx, c: repo.CampaignRow): Promise<void> {
  if (c.winnerKey) {
    await startWinnerPhase(tx, c);
    return;
  }
  await repo.updateCampaign(tx, c.projectId, c.id, { fanoutCheckpoint: FANOUT_DONE, experimentPhase: 'waiting' });
  const due = (c.sentAt ?? deps.clock.now()).getTime() + c.experiment!.waitMinutes * 60_000;
  await enqueueJob(
    tx,
    pickWinnerJob,
    { campaignId: c.id },
    { jobKey: winnerJobKey(c.id), runAt: new Date(Date.now() + Math.max(0, due - deps.clock.now().getTime())) },
  );
}

/**
 * Moves a locked experiment whose winner is chosen and whose test mail is out to phase "winner": the
 * fan-out starts again from the first contact, over the eligible contacts without a group.
 */
export async function startWinnerPhase(tx: Tx, c: repo.CampaignRow): Promise<void> {
  await repo.updateCampaign(tx, c.projectId, c.id, { experimentPhase: 'winner', fanoutCheckpoint: null });
  await enqueueJob(tx, fanoutCampaignJob, { campaignId: c.id }, { jobKey: fanoutKey(c.id), priority: FANOUT_PRIORITY });
}

/**
 * The `campaigns:finalize` job: SENT once every email of a fully fanned-out campaign has a final
 * state (nothing PENDING or SENDING); otherwise stores the counters so far and checks again shortly.
 * `totalRecipients` becomes the number of emails created (contacts who unsubscribed during the
 * fan-out were skipped).
 */
export async function finalize(deps: Deps, campaignId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const c = await repo.lockCampaignById(tx, campaignId);
    // While an experiment waits for its winner there is more to send: the winner phase finalizes.
    if (!c || c.status !== 'SENDING' || c.fanoutCheckpoint !== FANOUT_DONE || c.experimentPhase === 'waiting') return;
    const counts = (await repo.countEmails(tx, c.projectId, [c.id])).get(c.id)!;
    await repo.storeCounters(tx, c.id, counts);
    if (counts.pending > 0) {
      // Wall-clock delay: a polling interval, not business time. When every mail still waiting is due
      // later (send windows, local time: delivery.ts), the next look is when the first of them is due,
      // not every second for hours.
      let wait = FINALIZE_POLL_MS;
      if (c.delivery) {
        const r = await tx.execute<{ next: string | null }>(sql`
          select case when bool_or(due_at is null or due_at <= ${deps.clock.now().toISOString()}::timestamptz) then null
            else min(due_at) end as next
          from emails where campaign_id = ${c.id}::uuid and status in ('PENDING', 'SENDING')`);
        const next = r.rows[0]?.next;
        if (next) wait = Math.max(wait, new Date(next).getTime() - deps.clock.now().getTime());
      }
      await enqueueJob(
        tx,
        finalizeCampaignJob,
        { campaignId: c.id },
        { jobKey: finalizeKey(c.id), runAt: new Date(Date.now() + wait) },
      );
      return;
    }
    const row = await repo.updateCampaign(tx, c.projectId, c.id, {
      status: 'SENT',
      totalRecipients: counts.total,
      updatedAt: deps.clock.now(),
    });
    await queueWebhookDeliveries(tx, c.projectId, [campaignWebhookEvent('campaign.sent', row!, deps.clock.now())]);
  });
}

/**
 * Cancels a locked SCHEDULED or SENDING campaign (mail already handed to the transport
 * stays sent, the rest is never sent): removes its pending jobs and turns its PENDING emails into
 * FAILED with error "cancelled" (kept, not deleted, so the record shows who did not get it). Their
 * queued `emails:send` jobs then find nothing to claim. A fan-out batch in flight holds the campaign
 * row lock, so it commits before this runs and its rows are cancelled too.
 */
export async function cancelSending(deps: Deps, tx: Tx, c: repo.CampaignRow, now: Date): Promise<repo.CampaignRow> {
  await removeJob(tx, fanoutKey(c.id));
  await removeJob(tx, finalizeKey(c.id));
  await removeJob(tx, winnerJobKey(c.id));
  await cancelPendingOfCampaign(tx, c.projectId, c.id, now);
  const row = await repo.updateCampaign(tx, c.projectId, c.id, { status: 'CANCELLED', updatedAt: now });
  await queueWebhookDeliveries(tx, c.projectId, [campaignWebhookEvent('campaign.cancelled', row!, now)]);
  if (c.status === 'SENDING')
    await repo.storeCounters(tx, c.id, (await repo.countEmails(tx, c.projectId, [c.id])).get(c.id)!);
  return row!;
}
