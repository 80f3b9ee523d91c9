import type { Deps } from '../deps.js';
import { invalid } from '../http/errors.js';
import * as repo from './analytics.repo.js';
import { rate, resolveRange } from './range.js';

type RangeQ = { from?: Date; to?: Date };

/** Most buckets one time series may have (e.g. 83 days of hours, 5 years of days). */
export const MAX_BUCKETS = 2000;

/**
 * Email status counts per UTC day or hour over `[from, to)` (default: the last 30 days):
 * `{from, to, interval, data: [{date, sent, delivered, opened, clicked, bounced, complained, humanOpened,
 * humanClicked}]}` (`opened`/`clicked` raw, the human ones without machine activity).
 * @throws AppError 422 when from >= to or the range needs more than {@link MAX_BUCKETS} buckets.
 */
export async function timeseries(deps: Deps, projectId: string, q: RangeQ & { interval: 'day' | 'hour' }) {
  const range = resolveRange(q, deps.clock.now());
  const size = q.interval === 'hour' ? 3_600_000 : 86_400_000;
  if ((range.to.getTime() - range.from.getTime()) / size > MAX_BUCKETS - 1) {
    throw invalid('from', `The range is too long: at most ${MAX_BUCKETS} ${q.interval}s`, 'too_big');
  }
  const data = await repo.timeseries(deps.db, projectId, range, q.interval);
  return { from: range.from.toISOString(), to: range.to.toISOString(), interval: q.interval, data };
}

/**
 * Campaigns with the most (raw) opens or clicks among emails created in the range, with rates in
 * percent of sent, raw and human (machine activity left out: emails/tracking/machine.ts).
 */
export async function topCampaigns(
  deps: Deps,
  projectId: string,
  q: RangeQ & { sort: 'opens' | 'clicks'; limit: number },
) {
  const range = resolveRange(q, deps.clock.now());
  const rows = await repo.topCampaigns(deps.db, projectId, range, q.sort, q.limit);
  return {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    data: rows.map((r) => ({
      ...r,
      openRate: rate(r.opened, r.sent),
      clickRate: rate(r.clicked, r.sent),
      humanOpenRate: rate(r.humanOpened, r.sent),
      humanClickRate: rate(r.humanClicked, r.sent),
    })),
  };
}

/**
 * Totals and rates over campaign emails created in the range (opens and clicks raw and human), plus
 * every campaign of the project by status.
 */
export async function campaignStats(deps: Deps, projectId: string, q: RangeQ) {
  const range = resolveRange(q, deps.clock.now());
  const t = await repo.campaignTotals(deps.db, projectId, range);
  const byStatus = { DRAFT: 0, SCHEDULED: 0, SENDING: 0, SENT: 0, CANCELLED: 0, ...(t.byStatus ?? {}) };
  return {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    campaigns: t.campaigns,
    recipients: t.recipients,
    sent: t.sent,
    delivered: t.delivered,
    opened: t.opened,
    clicked: t.clicked,
    bounced: t.bounced,
    complained: t.complained,
    humanOpened: t.humanOpened,
    humanClicked: t.humanClicked,
    deliveryRate: rate(t.delivered, t.sent),
    openRate: rate(t.opened, t.sent),
    clickRate: rate(t.clicked, t.sent),
    humanOpenRate: rate(t.humanOpened, t.sent),
    humanClickRate: rate(t.humanClicked, t.sent),
    bounceRate: rate(t.bounced, t.sent),
    complaintRate: rate(t.complained, t.sent),
    byStatus,
  };
}

/** Event names by count in the range: `{from, to, data: [{name, count, contacts, lastSeen}]}`. */
export async function topEvents(deps: Deps, projectId: string, q: RangeQ & { limit: number; includeSystem: boolean }) {
  const range = resolveRange(q, deps.clock.now());
  const data = await repo.topEvents(deps.db, projectId, range, q.limit, q.includeSystem);
  return { from: range.from.toISOString(), to: range.to.toISOString(), data };
}
