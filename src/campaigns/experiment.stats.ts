import { sql } from 'drizzle-orm';
import { rate } from '../analytics/range.js';
import type { Tx } from '../db/tx.js';
import type { CampaignRow } from './campaigns.repo.js';
import { HOLDOUT, hasWinnerPhase, isExperiment } from './experiment.js';

/**
 * What an A/B/n campaign's test says: each variant's test-group figures, the leader on the metric,
 * p-values, and the holdout's conversions beside those of everyone mailed. Human figures leave out
 * machine opens and clicks (emails.human_opened_at / human_clicked_at, emails/tracking/machine.ts).
 */

/** One variant's test group; `conversions` only for an event metric. */
export type VariantFigures = {
  key: string;
  contacts: number;
  sent: number;
  delivered: number;
  opens: number;
  clicks: number;
  humanOpens: number;
  humanClicks: number;
  conversions: number | null;
};

/** The event name of an "event:<name>" metric, else null. */
export const metricEvent = (metric: string): string | null => (metric.startsWith('event:') ? metric.slice(6) : null);

/** The count a variant is judged on: human opens, human clicks or conversions. */
export function successes(f: VariantFigures, metric: string): number {
  if (metric === 'open') return f.humanOpens;
  if (metric === 'click') return f.humanClicks;
  return f.conversions ?? 0;
}

/**
 * Figures of each variant's test group, in the variants' order (mail of the winner phase is left out:
 * it is one variant sent to everyone else, not part of the comparison).
 */
export async function variantFigures(db: Tx, c: CampaignRow): Promise<VariantFigures[]> {
  if (!isExperiment(c)) return [];
  const keys = `{${c.variants!.map((v) => v.key).join(',')}}`;
  const event = metricEvent(c.experiment!.metric);
  const since = (c.sentAt ?? c.createdAt).toISOString();
  const conversions = event
    ? sql`(select e.variant, count(distinct ev.contact_id)::int as n
        from events ev join emails e on e.campaign_id = ${c.id}::uuid and e.contact_id = ev.contact_id
        where ev.project_id = ${c.projectId} and ev.name = ${event} and ev.created_at >= ${since}::timestamptz
          and e.variant is not null and e.winner_phase is null and e.sent_at is not null
        group by e.variant)`
    : sql`(select null::text as variant, 0 as n where false)`;
  const r = await db.execute<VariantFigures & { conv: number | null }>(sql`
    select v.key, coalesce(g.n, 0)::int as contacts, coalesce(m.sent, 0)::int as sent,
      coalesce(m.delivered, 0)::int as delivered, coalesce(m.opens, 0)::int as opens, coalesce(m.clicks, 0)::int as clicks,
      coalesce(m.human_opens, 0)::int as "humanOpens", coalesce(m.human_clicks, 0)::int as "humanClicks",
      coalesce(x.n, 0)::int as conv
    from unnest(${keys}::text[]) with ordinality v(key, ord)
    left join (select grp, count(*) as n from campaign_groups where campaign_id = ${c.id}::uuid group by grp) g on g.grp = v.key
    left join (
      select variant, count(*) filter (where sent_at is not null) as sent,
        count(*) filter (where delivered_at is not null) as delivered,
        count(*) filter (where opened_at is not null) as opens,
        count(*) filter (where clicked_at is not null) as clicks,
        count(*) filter (where human_opened_at is not null) as human_opens,
        count(*) filter (where human_clicked_at is not null) as human_clicks
      from emails
      where campaign_id = ${c.id}::uuid and project_id = ${c.projectId} and variant is not null and winner_phase is null
      group by variant
    ) m on m.variant = v.key
    left join ${conversions} x on x.variant = v.key
    order by v.ord`);
  return r.rows.map(({ conv, ...f }) => ({ ...f, conversions: event ? conv : null }));
}

/** The variant with the best rate (successes / sent), ties and no data to the earliest; null without variants. */
export function leaderOf(figures: VariantFigures[], metric: string): VariantFigures | null {
  let best: VariantFigures | null = null;
  let bestRate = -1;
  for (const f of figures) {
    const share = f.sent > 0 ? successes(f, metric) / f.sent : 0;
    if (share > bestRate) [best, bestRate] = [f, share];
  }
  return best;
}

/** Standard normal cumulative distribution, through erf (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/**
 * Two-sided p-value of the pooled two-proportion z-test of `x1` successes in `n1` trials against `x2`
 * in `n2`: the chance of a difference at least this large if both came from one rate. Null when either
 * group is empty or the pooled rate is 0 or 1 (no variance: nothing to test).
 */
export function twoProportionPValue(x1: number, n1: number, x2: number, n2: number): number | null {
  if (n1 <= 0 || n2 <= 0) return null;
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (!(se > 0)) return null;
  const z = (x1 / n1 - x2 / n2) / se;
  return Math.min(1, Math.max(0, 2 * (1 - normalCdf(Math.abs(z)))));
}

/**
 * The holdout beside everyone mailed, for an event metric: contacts held out, how many of them tracked
 * the event after the start, and the same for every contact the campaign mailed (both phases).
 * `mailed`: the campaign's sent emails, as its counters already counted them (one contact each).
 * Null without a holdout; conversions null unless the metric is an event.
 */
export async function holdoutFigures(db: Tx, c: CampaignRow, mailed: number) {
  if (!isExperiment(c) || c.experiment!.holdoutPercent <= 0) return null;
  const event = metricEvent(c.experiment!.metric);
  const since = (c.sentAt ?? c.createdAt).toISOString();
  const converted = (alias: string) =>
    sql`exists (select 1 from events ev where ev.project_id = ${c.projectId} and ev.contact_id = ${sql.raw(alias)}.contact_id
      and ev.name = ${event} and ev.created_at >= ${since}::timestamptz)`;
  const [h] = (
    await db.execute<{ contacts: number; conversions: number }>(sql`
      select count(*)::int as contacts, ${event ? sql`count(*) filter (where ${converted('g')})::int` : sql`0`} as conversions
      from campaign_groups g where g.campaign_id = ${c.id}::uuid and g.grp = ${HOLDOUT}`)
  ).rows;
  if (!event) return { contacts: h.contacts, conversions: null, mailed: null, mailedConversions: null };
  // From the event's side: the contacts who converted, then whether the campaign mailed them.
  const [m] = (
    await db.execute<{ conversions: number }>(sql`
      select count(distinct ev.contact_id)::int as conversions from events ev
      where ev.project_id = ${c.projectId} and ev.name = ${event} and ev.created_at >= ${since}::timestamptz
        and exists (select 1 from emails e where e.campaign_id = ${c.id}::uuid and e.contact_id = ev.contact_id
          and e.sent_at is not null)`)
  ).rows;
  return { contacts: h.contacts, conversions: h.conversions, mailed, mailedConversions: m.conversions };
}

/** Where the experiment is, for the stats: draft before its start, done once SENT or CANCELLED. */
export function phaseOf(c: CampaignRow): 'draft' | 'test' | 'waiting' | 'winner' | 'done' {
  if (c.status === 'SENT' || c.status === 'CANCELLED') return 'done';
  if (c.status !== 'SENDING') return 'draft';
  return c.experimentPhase ?? 'test';
}

/**
 * `experiment` and `variants` of `GET /campaigns/:id/stats`; both null for a plain campaign.
 * `winnerDueAt`: the start plus `waitMinutes`, while a winner is still to be chosen automatically;
 * `mailed`: the campaign's sent emails (its counters' `sent`), for the holdout's comparison.
 */
export async function experimentStats(db: Tx, c: CampaignRow, mailed: number) {
  if (!isExperiment(c)) return { experiment: null, variants: null };
  const e = c.experiment!;
  const figures = await variantFigures(db, c);
  const leader = leaderOf(figures, e.metric);
  const lead = leader ? { x: successes(leader, e.metric), n: leader.sent } : null;
  const variants = figures.map((f) => {
    const x = successes(f, e.metric);
    const pValue = !lead || f.key === leader!.key ? null : twoProportionPValue(lead.x, lead.n, x, f.sent);
    return { ...f, rate: rate(x, f.sent), pValue, significant: pValue !== null && pValue < 0.05 };
  });
  const h = await holdoutFigures(db, c, mailed);
  const holdout = h && {
    contacts: h.contacts,
    conversions: h.conversions,
    conversionRate: h.conversions === null ? null : rate(h.conversions, h.contacts),
    mailedConversionRate: h.mailedConversions === null ? null : rate(h.mailedConversions, h.mailed!),
    liftPoints:
      h.conversions === null || h.mailedConversions === null
        ? null
        : Math.round((rate(h.mailedConversions, h.mailed!) - rate(h.conversions, h.contacts)) * 100) / 100,
    pValue:
      h.conversions === null || h.mailedConversions === null
        ? null
        : twoProportionPValue(h.mailedConversions, h.mailed!, h.conversions, h.contacts),
  };
  const due =
    hasWinnerPhase(c) && !c.winnerKey && c.sentAt ? new Date(c.sentAt.getTime() + e.waitMinutes * 60_000) : null;
  return {
    experiment: {
      metric: e.metric,
      testPercent: e.testPercent,
      holdoutPercent: e.holdoutPercent,
      waitMinutes: e.waitMinutes,
      phase: phaseOf(c),
      seed: c.experimentSeed,
      winner: c.winnerKey,
      winnerChosenAt: c.winnerChosenAt?.toISOString() ?? null,
      winnerChosenBy: c.winnerChosenBy,
      winnerDueAt: due && c.status === 'SENDING' ? due.toISOString() : null,
      leader: leader?.key ?? null,
      holdout,
    },
    variants,
  };
}
