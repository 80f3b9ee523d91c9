import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import { decodeCursor, encodeCursor } from './events.cursor.js';
import { isReservedEventName } from './emit.js';
import * as repo from './events.repo.js';
import type { EventOut, ListEventsQuery } from './events.schema.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const UUID_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toEventOut(r: repo.EventListRow): EventOut {
  return {
    id: r.id,
    name: r.name,
    contactId: r.contactId,
    contact: r.contactId && r.contactEmail ? { id: r.contactId, email: r.contactEmail } : null,
    data: r.data,
    emailId: r.emailId,
    campaignId: r.campaignId,
    createdAt: r.createdAt,
  };
}

/**
 * Events newest first in the cursor envelope `{data, cursor, hasMore, total}`;
 * like `GET /contacts`, `total` is counted on the first page only (0 on later pages).
 * @throws AppError 422 for a malformed cursor.
 */
export async function listEvents(deps: Deps, projectId: string, q: ListEventsQuery) {
  const cursor = q.cursor ? decodeCursor(q.cursor, UUID_KEY) : undefined;
  const [rows, total] = await Promise.all([
    repo.listEvents(deps.db, projectId, { ...q, cursor }),
    cursor ? 0 : repo.countEvents(deps.db, projectId, q),
  ]);
  return page(rows, q.limit, total);
}

/** The cursor envelope over `limit + 1` rows. */
function page(rows: repo.EventListRow[], limit: number, total: number) {
  const hasMore = rows.length > limit;
  const data = rows.slice(0, limit);
  const last = data.at(-1);
  return {
    data: data.map(toEventOut),
    cursor: hasMore && last ? encodeCursor(last.atUs, last.id) : null,
    hasMore,
    total,
  };
}

/**
 * Events of one contact (same envelope as {@link listEvents}), in two queries.
 * @throws AppError 404 for an unknown contact or one of another project; 422 for a malformed cursor.
 */
export async function contactEvents(
  deps: Deps,
  projectId: string,
  contactId: string,
  q: Omit<ListEventsQuery, 'contactId'>,
) {
  if (!isUuid(contactId)) throw notFound('Contact');
  const cursor = q.cursor ? decodeCursor(q.cursor, UUID_KEY) : undefined;
  const [rows, head] = await Promise.all([
    repo.listEvents(deps.db, projectId, { ...q, contactId, cursor }),
    repo.contactEventCount(deps.db, projectId, contactId, q.name),
  ]);
  if (!head.present) throw notFound('Contact');
  return page(rows, q.limit, cursor ? 0 : head.n);
}

/** Distinct event names: `[{name, count, last30Days, contacts, lastSeen, reserved}]`, most frequent first. */
export async function eventNames(deps: Deps, projectId: string) {
  const rows = await repo.eventNames(deps.db, projectId, new Date(deps.clock.now().getTime() - 30 * DAY_MS));
  return rows.map((r) => ({
    name: r.name,
    count: r.count,
    last30Days: r.last30Days,
    contacts: r.contacts,
    lastSeen: r.lastSeen,
    reserved: isReservedEventName(r.name),
  }));
}

/**
 * Totals, counts per name and a per-day series of the last 30 days (UTC days, today included).
 * `{total, last30Days, uniqueNames, byName: [{name, count, last30Days}], daily: [{date, count}]}`.
 */
export async function eventStats(deps: Deps, projectId: string) {
  const now = deps.clock.now();
  const since = new Date(now.getTime() - 30 * DAY_MS);
  const [names, daily] = await Promise.all([
    repo.eventNames(deps.db, projectId, since),
    repo.dailyCounts(deps.db, projectId, new Date(now.getTime() - 29 * DAY_MS), now),
  ]);
  return {
    total: names.reduce((n, r) => n + r.count, 0),
    last30Days: names.reduce((n, r) => n + r.last30Days, 0),
    uniqueNames: names.length,
    byName: names.map((r) => ({ name: r.name, count: r.count, last30Days: r.last30Days })),
    daily,
  };
}

/**
 * Where an event name is used: workflows (trigger or WAIT_FOR_EVENT/CONDITION step), segments and
 * campaign audiences whose condition tree filters on `event.<name>`.
 */
export async function eventUsage(deps: Deps, projectId: string, eventName: string) {
  const rows = await repo.eventUsage(deps.db, projectId, eventName);
  return {
    eventName,
    workflows: rows
      .filter((r) => r.kind === 'workflow_trigger' || r.kind === 'workflow_step')
      .map((r) => ({
        id: r.id,
        name: r.name,
        enabled: r.enabled!,
        usedAs: r.kind === 'workflow_trigger' ? 'trigger' : r.detail,
        stepId: r.stepId,
        stepName: r.stepName,
      })),
    segments: rows.filter((r) => r.kind === 'segment').map((r) => ({ id: r.id, name: r.name, type: r.detail })),
    campaigns: rows.filter((r) => r.kind === 'campaign').map((r) => ({ id: r.id, name: r.name, status: r.detail })),
  };
}

/** Deletes every event with that name. @throws AppError 404 when the project has none. */
export async function deleteEventName(deps: Deps, projectId: string, eventName: string): Promise<void> {
  const n = await repo.deleteEventsByName(deps.db, projectId, eventName);
  if (n === 0) throw notFound('Event');
}
