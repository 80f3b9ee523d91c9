import { sql, type SQL } from 'drizzle-orm';
import { newId } from '../lib/ids.js';
import { sqlUuidV7 } from '../db/uuid-sql.js';
import type { SqlRunner } from '../db/tx.js';
import { INTERNAL_TO_WEBHOOK_TYPE, SEGMENT_MOVE, WEBHOOK_EVENT_TYPES } from './event-types.js';
import { relation, type Relation } from '../db/relation.js';
import type { EventRelation } from '../events/event-relation.js';

/**
 * The one rule for queueing event webhook deliveries, written once as SQL so that every writer of
 * events uses it in the statement (or transaction) that writes the event: an event and its deliveries
 * exist together or not at all, and each event is offered once to each matching endpoint (unique
 * `(endpoint_id, event_id)`).
 *
 * Cost: the statement first asks whether the project has any enabled endpoint (one look-up on the
 * partial index `webhook_endpoints_project_enabled_idx`, evaluated once per statement, not per event
 * row); when it has none, nothing else runs. Set-based writers (markSentMany, /v1/track, segment
 * compute) pay that one look-up per statement, never one per row.
 */

const typeCase = (name: SQL) =>
  sql`case ${name} ${sql.join(
    Object.entries(INTERNAL_TO_WEBHOOK_TYPE).map(([from, to]) => sql`when ${from}::text then ${to}::text`),
    sql` `,
  )} else ${name} end`;
const systemTypes = sql`array[${sql.join(
  WEBHOOK_EVENT_TYPES.map((t) => sql`${t}::text`),
  sql`, `,
)}]`;

/**
 * A delivery id from its event's id (a UUIDv7): bytes 1–11 (the millisecond time and, for ids made by
 * `newId`, the monotonic counter of RFC 9562 §6.2 method 1) are kept and bytes 12–16 are random. So
 * one event's deliveries to several endpoints get distinct ids, and deliveries sort as their events do,
 * down to two events made in the same millisecond (an email's `email.sent` and `email.delivery`): the
 * dispatcher sends in this order (dispatch/pump.ts).
 */
const deliveryIdOf = (eventId: SQL) =>
  sql`encode(overlay(uuid_send(${eventId}) placing substring(uuid_send(gen_random_uuid()) from 12 for 5) from 12 for 5), 'hex')::uuid`;

/**
 * An `INSERT … SELECT` (usable as a statement or as a data-modifying CTE, which PostgreSQL always
 * runs) that queues one PENDING delivery per (event, matching enabled endpoint of `projectId`), due at
 * the event's time. `events` is a relation with `id` (uuid), `contact_id`, `name` (internal name, see
 * event-types.ts), `data` (jsonb) and `created_at` (timestamptz), e.g. the CTE that inserted the
 * events. The payload is `{type, timestamp, data}` where `data` is the event's data with `contactId`
 * and `projectId` added. Matching: `*` and `family.*` (e.g. `contact.*`) match the types Pigeon emits
 * (event-types.ts `WEBHOOK_EVENT_TYPES` and segment moves); tracked events match only their exact
 * name. The delivery's `subject`, what its first attempt is ordered by (dispatch/pump.ts), is the
 * email (`data.emailId`), else the contact, else the campaign (`data.campaignId`) the event is about.
 * The insert wakes the worker's dispatchers (trigger `webhook_deliveries_notify`, at commit).
 */
export function webhookDeliveries(events: EventRelation, projectId: string): SQL {
  return sql`insert into webhook_deliveries (id, project_id, endpoint_id, event_id, event_type, subject, payload, next_attempt_at, created_at)
    select ${deliveryIdOf(sql`ev.id`)}, ${projectId}::uuid, we.id, ev.id, t.type,
      coalesce(ev.data->>'emailId', ev.contact_id::text, ev.data->>'campaignId'),
      jsonb_build_object('type', t.type,
        'timestamp', to_char(ev.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'data', coalesce(ev.data, '{}'::jsonb) || jsonb_strip_nulls(jsonb_build_object('contactId', ev.contact_id, 'projectId', ${projectId}::uuid))),
      ev.created_at, ev.created_at
    from ${events.from} ev
    cross join lateral (select ${typeCase(sql`ev.name`)} as type) t
    cross join lateral (select t.type = any(${systemTypes}) or t.type ~ ${SEGMENT_MOVE.source}::text as system) s
    join webhook_endpoints we on we.project_id = ${projectId}::uuid and we.enabled
      and exists (select 1 from unnest(we.events) p where p = t.type
        or (s.system and (p = '*' or (right(p, 2) = '.*' and starts_with(t.type, left(p, -1))))))
    where exists (select 1 from webhook_endpoints x where x.project_id = ${projectId}::uuid and x.enabled)`;
}

/** An event that has no row in `events` (contact created/updated/deleted, campaign status, email failed). */
export interface WebhookEvent {
  /** Webhook type, e.g. `contact.created`. */
  type: string;
  contactId?: string | null;
  data: Record<string, unknown>;
  at: Date;
}

/**
 * Queues the deliveries of events that are not recorded in `events`, in the caller's transaction `tx`,
 * by the rule of {@link webhookDeliveries} (one statement for the whole list; each event gets a new
 * id, the `webhook-id` receivers deduplicate on). Costs one index look-up when the project has no
 * enabled endpoint.
 */
export async function queueWebhookDeliveries(tx: SqlRunner, projectId: string, events: WebhookEvent[]): Promise<void> {
  if (!events.length) return;
  const rows = events.map((e) => ({
    id: newId(),
    contact_id: e.contactId ?? null,
    name: e.type,
    data: e.data,
    created_at: e.at.toISOString(),
  }));
  await tx.execute(
    webhookDeliveries(
      relation(sql`(select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
    as x(id uuid, contact_id uuid, name text, data jsonb, created_at timestamptz))`),
      projectId,
    ),
  );
}

/** A `contact.*` webhook event about `c`: data `{contactId, email, subscribed, data}`. */
export function contactWebhookEvent(
  type: 'contact.created' | 'contact.updated' | 'contact.deleted',
  c: { id: string; email: string; subscribed: boolean; data: Record<string, unknown> },
  at: Date,
): WebhookEvent {
  return { type, contactId: c.id, data: { email: c.email, subscribed: c.subscribed, data: c.data }, at };
}

/** A `campaign.*` webhook event about campaign row `c`: data `{campaignId, name, status, totalRecipients, reason?}`. */
export function campaignWebhookEvent(
  type: 'campaign.sending' | 'campaign.sent' | 'campaign.cancelled',
  c: { id: string; name: string; status: string; totalRecipients?: number | null; statusReason?: string | null },
  at: Date,
): WebhookEvent {
  return {
    type,
    at,
    data: {
      campaignId: c.id,
      name: c.name,
      status: c.status,
      totalRecipients: c.totalRecipients ?? null,
      ...(c.statusReason ? { reason: c.statusReason } : {}),
    },
  };
}

/** The columns of upserted contacts that {@link contactUpsertEvents} reads. */
export type UpsertedContactColumns = 'id' | 'email' | 'subscribed' | 'data' | 'is_new';

/**
 * The `contact.created` / `contact.updated` events of a set of upserted contacts as an events relation
 * for {@link webhookDeliveries}: `rows` has `id`, `email`, `subscribed`, `data` and a boolean `is_new`
 * ({@link UpsertedContactColumns}).
 * `at` is when they happened: one instant for all, or a timestamptz expression over `r` (a column of
 * `rows`, as a group-committed `/v1/track` gives each contact its own request's time).
 */
export function contactUpsertEvents(rows: Relation<UpsertedContactColumns>, at: Date | SQL): EventRelation {
  const when = at instanceof Date ? sql`${at.toISOString()}::timestamptz` : at;
  return relation(sql`(select ${sqlUuidV7(when)} as id, r.id as contact_id,
      case when r.is_new then 'contact.created' else 'contact.updated' end::text as name,
      jsonb_build_object('email', r.email, 'subscribed', r.subscribed, 'data', r.data) as data, ${when} as created_at
    from ${rows.from} r)`);
}
