import { randomInt } from 'node:crypto';
import { derivedUuid } from '../lib/ids.js';
import { sql, type SQL } from 'drizzle-orm';
import type { CampaignExperiment, CampaignVariant } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { assertVerifiedSender } from '../domains/verified.js';
import { assertTemplatesParse } from '../emails/render/render.js';
import { insertContent } from '../emails/emails.repo.js';
import { AppError, type FieldError } from '../http/errors.js';
import type { Tx } from '../db/tx.js';
import type { CampaignRow } from './campaigns.repo.js';
import * as repo from './campaigns.repo.js';
import { MAX_VARIANTS, MIN_VARIANTS } from './experiment.schema.js';

/**
 * A/B/n campaigns with a holdout: the rules of who is in which group and what each group gets. The
 * send (fanout.ts) calls these; the figures and the choice of a winner are experiment.stats.ts.
 *
 * 1. When the fan-out starts, the eligible audience (N contacts) is put in a random order seeded by
 *    `experiment_seed` (md5 of seed and contact id, recorded, so the draw can be replayed) and cut:
 *    the first round(N × holdoutPercent / 100) are the holdout (never mailed), the next
 *    round(N × testPercent / 100) (everyone else with testPercent 100) go round-robin to the variants
 *    in their order, so the test groups differ by at most one. The groups are rows of
 *    `campaign_groups`, written in the transaction that moves the campaign to phase "test".
 * 2. Phase "test" mails each test group its variant, batch by batch like any campaign.
 * 3. Then, unless it was a pure split (testPercent 100), phase "waiting" until `waitMinutes` after the
 *    start (the `campaigns:pick-winner` job) or `POST /campaigns/:id/winner`; the winner is the
 *    variant with the best human rate on the metric, ties to the earliest.
 * 4. Phase "winner" mails the winner to every eligible contact without a group row.
 * Every step runs under the campaign's row lock and is resumed from the database after a crash; the
 * unique (campaign, contact) index on emails keeps anyone from being mailed twice.
 */

/** The `grp` of the contacts who get nothing. */
export const HOLDOUT = 'holdout';

/** True when the campaign is an A/B/n experiment. */
export function isExperiment(c: Pick<CampaignRow, 'variants' | 'experiment'>): boolean {
  return !!c.experiment && !!c.variants && c.variants.length >= MIN_VARIANTS;
}

/** True when a winner goes to the rest after the test (anything but a pure split). */
export function hasWinnerPhase(c: Pick<CampaignRow, 'variants' | 'experiment'>): boolean {
  return isExperiment(c) && c.experiment!.testPercent < 100;
}

/** The id under which a variant's own body is stored in `email_contents` (derived, so never stored). */
export function variantContentId(campaignId: string, key: string): string {
  return derivedUuid(`${campaignId}:variant:${key}`);
}

/** What one variant's mail is made of, the campaign's own fields filling the gaps. */
export function variantContent(c: CampaignRow, v: CampaignVariant) {
  return {
    key: v.key,
    subject: v.subject ?? c.subject,
    from: v.from ?? c.from,
    fromName: v.fromName ?? c.fromName,
    contentId: v.body !== undefined ? variantContentId(c.id, v.key) : c.id,
  };
}

/** Every sender address the campaign's mail may go out from (the campaign's and its variants'). */
export function sendersOf(c: Pick<CampaignRow, 'from' | 'variants'>): string[] {
  return [...new Set([c.from, ...(c.variants ?? []).flatMap((v) => (v.from ? [v.from] : []))])];
}

/**
 * Checks the A/B/n fields of a campaign body: both or neither of `variants` and `experiment`, 2 to 5
 * variants with distinct keys, subjects and bodies that parse, senders of verified domains.
 * @returns the fields to store (null for a plain campaign).
 * @throws AppError 422 VALIDATION_ERROR naming the field; 403 for a sender whose domain is not verified.
 */
export async function checkExperiment(
  deps: Deps,
  projectId: string,
  input: { variants?: CampaignVariant[] | null; experiment?: CampaignExperiment | null },
): Promise<{ variants: CampaignVariant[] | null; experiment: CampaignExperiment | null }> {
  const variants = input.variants ?? null;
  const experiment = input.experiment ?? null;
  const errors: FieldError[] = [];
  if (variants && !experiment)
    errors.push({
      field: 'experiment',
      code: 'invalid_type',
      message: 'Required when variants are given',
      received: 'undefined',
    });
  if (experiment && !variants)
    errors.push({
      field: 'variants',
      code: 'invalid_type',
      message: 'Required when experiment is given',
      received: 'undefined',
    });
  if (variants && (variants.length < MIN_VARIANTS || variants.length > MAX_VARIANTS))
    errors.push({
      field: 'variants',
      code: 'too_small',
      message: `An experiment has ${MIN_VARIANTS} to ${MAX_VARIANTS} variants`,
      received: String(variants.length),
    });
  const keys = (variants ?? []).map((v) => v.key);
  const twice = keys.find((k, i) => keys.indexOf(k) !== i);
  if (twice)
    errors.push({
      field: 'variants',
      code: 'duplicate',
      message: `Variant key "${twice}" is used twice`,
      received: twice,
    });
  if (errors.length)
    throw new AppError(
      'VALIDATION_ERROR',
      `Invalid experiment: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      {
        errors,
      },
    );
  for (const v of variants ?? []) {
    try {
      assertTemplatesParse({ subject: v.subject, body: v.body });
    } catch (err) {
      if (err instanceof AppError && err.errors)
        throw new AppError('VALIDATION_ERROR', `Variant ${v.key}: ${err.message}`, {
          errors: err.errors.map((e) => ({ ...e, field: `variants.${v.key}.${e.field}` })),
          suggestion: err.suggestion,
        });
      throw err;
    }
    if (v.from) await assertVerifiedSender(deps.db, projectId, v.from, deps);
  }
  return experiment && variants ? { variants, experiment } : { variants: null, experiment: null };
}

/** Stores the bodies of the variants that have their own, once for all their mail (at the start). */
export async function storeVariantContents(tx: Tx, c: CampaignRow, now: Date): Promise<void> {
  if (!isExperiment(c)) return;
  for (const v of c.variants!)
    if (v.body !== undefined)
      await insertContent(tx, {
        id: variantContentId(c.id, v.key),
        projectId: c.projectId,
        body: v.body,
        createdAt: now,
      });
}

/**
 * Draws the groups of a locked SENDING experiment (step 1 above) over the contacts matching `where`
 * (the campaign's recipient filter over `contacts c`) and moves it to phase "test", in `tx`.
 * @returns the updated row.
 */
export async function drawGroups(tx: Tx, c: CampaignRow, where: SQL, now: Date): Promise<CampaignRow> {
  const e = c.experiment!;
  const keys = c.variants!.map((v) => v.key);
  // 31 bits: stored in an integer column, and any seed gives an independent order.
  const seed = randomInt(0, 2 ** 31 - 1);
  const test = e.testPercent >= 100 ? sql`s.n` : sql`least(s.n, s.hold + round(s.n * ${e.testPercent}::numeric / 100))`;
  await tx.execute(sql`
    insert into campaign_groups (campaign_id, contact_id, grp)
    select ${c.id}::uuid, s.id,
      case when s.rn <= s.hold then ${HOLDOUT}
        else (${`{${keys.join(',')}}`}::text[])[((s.rn - s.hold - 1) % ${keys.length}) + 1] end
    from (
      select c.id, row_number() over (order by md5(${String(seed)} || ':' || c.id::text), c.id) as rn,
        count(*) over () as n, round(count(*) over () * ${e.holdoutPercent}::numeric / 100) as hold
      from contacts c where ${where}
    ) s
    where s.rn <= ${test}
    on conflict do nothing`);
  return (await repo.updateCampaign(tx, c.projectId, c.id, {
    experimentSeed: seed,
    experimentPhase: 'test',
    updatedAt: now,
  }))!;
}

/**
 * The parts of one fan-out statement of an experiment in its current phase: `ctes` (a `vv` VALUES
 * list of what each variant's mail is made of), the `batch` CTE body (`id`, `email`, `grp` of the next
 * {@link limit} contacts after `after` in id order) and the email columns read from `vv v`.
 */
export function experimentBatch(c: CampaignRow, where: SQL, after: string, limit: number) {
  const rows = c.variants!.map((v) => {
    const x = variantContent(c, v);
    return sql`(${x.key}::text, ${x.subject}::text, ${x.from}::text, ${x.fromName}::text, ${x.contentId}::uuid)`;
  });
  const ctes = sql`vv (key, subject, from_email, from_name, content_id) as (values ${sql.join(rows, sql`, `)})`;
  const batch =
    c.experimentPhase === 'winner'
      ? sql`select c.id, c.email, ${c.winnerKey}::text as grp from contacts c
          where ${where} and c.id > ${after}::uuid
            and not exists (select 1 from campaign_groups g where g.campaign_id = ${c.id}::uuid and g.contact_id = c.id)
          order by c.id limit ${limit}`
      : sql`select c.id, c.email, g.grp from contacts c
          join campaign_groups g on g.campaign_id = ${c.id}::uuid and g.contact_id = c.id and g.grp <> ${HOLDOUT}
          where ${where} and c.id > ${after}::uuid
          order by c.id limit ${limit}`;
  const values = {
    subject: sql`v.subject`,
    fromEmail: sql`v.from_email`,
    fromName: sql`v.from_name`,
    contentId: sql`v.content_id`,
    variant: sql`v.key`,
    ...(c.experimentPhase === 'winner' ? { winnerPhase: true } : {}),
  };
  return { ctes, batch, from: sql`batch b join vv v on v.key = b.grp`, values };
}
