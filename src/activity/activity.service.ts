import { rate, resolveRange } from '../analytics/range.js';
import type { Deps } from '../deps.js';
import { decodeCursor, encodeCursor } from '../events/events.cursor.js';
import * as repo from './activity.repo.js';
import { ACTIVITY_TYPES, type ActivityQuery, type ActivityType } from './activity.schema.js';

const KEY = /^[0-9a-f-]{36}:[a-z.]+$/;

/**
 * One feed item: `{id, type, occurredAt, contact, email, event}`; `email` is set for items of an
 * outgoing or inbound email, `event` for items that come from an event record.
 */
function toItem(r: repo.FeedRow) {
  return {
    id: r.key,
    type: r.type,
    occurredAt: r.at,
    contact: r.contactEmail ? { id: r.contactId, email: r.contactEmail } : null,
    email: r.emailId ? { id: r.emailId, subject: r.subject, campaignId: r.campaignId, templateId: r.templateId } : null,
    event: r.eventId ? { id: r.eventId, name: r.eventName, data: r.data } : null,
  };
}

/**
 * The activity feed newest first, in the cursor envelope `{data, cursor, hasMore, total}` (total on the
 * first page only). @throws AppError 422 for a malformed cursor.
 */
export async function feed(deps: Deps, projectId: string, q: ActivityQuery) {
  const cursor = q.cursor ? decodeCursor(q.cursor, KEY) : undefined;
  const types = q.type?.length ? q.type : undefined;
  const [rows, counts] = await Promise.all([
    repo.feedPage(deps.db, projectId, { types, cursor, limit: q.limit }),
    cursor ? undefined : repo.countByType(deps.db, projectId),
  ]);
  const hasMore = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    data: page.map(toItem),
    cursor: hasMore && last ? encodeCursor(last.atUs, last.key) : null,
    hasMore,
    total: counts ? ((types ?? ACTIVITY_TYPES) as readonly ActivityType[]).reduce((n, t) => n + counts[t], 0) : 0,
  };
}

/** Feed items per type in `[from, to)` (default: the last 30 days) with rates in percent of `sent`. */
export async function stats(deps: Deps, projectId: string, q: { from?: Date; to?: Date }) {
  const { from, to } = resolveRange(q, deps.clock.now());
  const s = await repo.stats(deps.db, projectId, from, to);
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    ...s,
    deliveryRate: rate(s.delivered, s.sent),
    openRate: rate(s.opened, s.sent),
    clickRate: rate(s.clicked, s.sent),
    bounceRate: rate(s.bounced, s.sent),
    complaintRate: rate(s.complained, s.sent),
  };
}

/** Number of feed items in the last `minutes` minutes: `{count, minutes, since}`. */
export async function recentCount(deps: Deps, projectId: string, minutes: number) {
  const since = new Date(deps.clock.now().getTime() - minutes * 60_000);
  return { count: await repo.countSince(deps.db, projectId, since), minutes, since: since.toISOString() };
}

export const types = (): ActivityType[] => [...ACTIVITY_TYPES];

/** Scheduled campaigns ahead and workflow executions waiting (for a delay or an event). */
export async function upcoming(deps: Deps, projectId: string, limit: number) {
  const { campaigns, executions } = await repo.upcoming(deps.db, projectId, deps.clock.now(), limit);
  return { campaigns, workflows: executions };
}
