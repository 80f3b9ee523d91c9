import { sql, type SQL } from 'drizzle-orm';
import { consentInsert, recordConsent, type ConsentOrigin } from '../consent/consent.js';
import { recordEvent } from '../events/emit.js';
import { contactWebhookEvent, queueWebhookDeliveries } from '../webhook-endpoints/fanout.js';
import type { SqlRunner } from '../db/tx.js';
import { cte, type Relation } from '../db/relation.js';
import type { EventColumns } from '../events/event-relation.js';

/**
 * A contact's subscription: the one module that changes `contacts.subscribed` on an existing contact
 * and says what the change records. Every path goes through here: `PATCH /contacts/:id`, the bulk
 * actions, the unsubscribe and subscribe pages (RFC 8058 one-click included), a hard bounce or a
 * complaint (feedback/consequences.ts), a workflow's UPDATE_CONTACT step, and, set-based, the upserts
 * of `POST /contacts`, `/v1/track`, `/v1/send` and the CSV import ({@link subscribedOnConflict},
 * {@link subscriptionFlipEvents}).
 *
 * The rule:
 * - `subscribed` is the master switch of marketing mail (emails/eligibility.ts reads it).
 * - A change of an existing contact's state records one `contact.subscribed` or `contact.unsubscribed`
 *   event (with its event webhook deliveries and the workflows it starts, events/emit.ts). Setting the
 *   state a contact already has records nothing; a new contact's first state is no change (it gets
 *   `contact.created` only).
 * - Every change of `subscribed` records one consent entry (consent/consent.ts, the consent log:
 *   `subscribed` or `unsubscribed`, with the change's {@link ConsentOrigin}) in the same transaction; a
 *   new contact created subscribed records `subscribed` (that is how it came to be mailed), one created
 *   unsubscribed records nothing. A snooze ({@link snoozeContacts}) records `snoozed`.
 * - Every write that changes a contact announces it with one `contact.updated` webhook delivery
 *   (data `{email, subscribed, data}`), whatever the path; a write that changes data and subscription
 *   together announces once. A client's explicit write of a contact (`POST /contacts`,
 *   `PATCH /contacts/:id`, the import, a workflow's UPDATE_CONTACT) announces it even when nothing
 *   changed, as Plunk does.
 */

/** Why a subscription changes: what the `contact.subscribed`/`contact.unsubscribed` event and the consent entry carry. */
export interface SubscriptionCause {
  /** Where the change was asked for: the consent entry's source (and ip, user agent of a public request). */
  origin: ConsentOrigin;
  /** The event's `data` (e.g. `{source: 'bulk-subscribe'}`); default `{}`. */
  eventData?: Record<string, unknown>;
  /** The email whose outcome made the change (a hard bounce, a complaint): the event is one causation level deeper than the workflow that sent it. */
  causedByEmailId?: string;
  /** Explicit causation depth (a workflow step passes its execution's depth + 1, workflows/causation.ts). */
  causationDepth?: number;
  /**
   * Whether this call queues the `contact.updated` delivery of each changed contact (default true).
   * False only for a caller that announces the contact's whole write itself, once (PATCH, UPDATE_CONTACT).
   */
  announce?: boolean;
}

/** A contact as a subscription change leaves it: what `contact.updated` carries. */
export type SubscriptionChanged = {
  id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
};

/**
 * Sets the subscription of contacts `contactIds` of project `projectId` to `subscribed`, at `at`, in the
 * caller's transaction. Only contacts whose state differs change; ids of other projects or of no
 * contact are ignored. Each changed contact gets its event and (unless `cause.announce` is false) its
 * `contact.updated` delivery, as the module's rule says.
 * @returns the changed contacts, in id order (the lock order, so concurrent calls cannot deadlock).
 */
export async function setSubscription(
  tx: SqlRunner,
  projectId: string,
  contactIds: readonly string[],
  subscribed: boolean,
  at: Date,
  cause: SubscriptionCause,
): Promise<SubscriptionChanged[]> {
  if (!contactIds.length) return [];
  const r = await tx.execute<SubscriptionChanged>(sql`
    update contacts c set subscribed = ${subscribed}, updated_at = ${at.toISOString()}::timestamptz
    from (select id from contacts where project_id = ${projectId}
        and id in (select x::uuid from jsonb_array_elements_text(${JSON.stringify([...new Set(contactIds)])}::jsonb) x)
        and subscribed <> ${subscribed}
      order by id for update) t
    where c.id = t.id and c.subscribed <> ${subscribed}
    returning c.id, c.email, c.subscribed, c.data`);
  const changed = r.rows.sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const c of changed) {
    await recordEvent(tx, {
      projectId,
      contactId: c.id,
      name: subscriptionEventName(subscribed),
      data: cause.eventData ?? {},
      createdAt: at,
      causedByEmailId: cause.causedByEmailId,
      causationDepth: cause.causationDepth,
    });
  }
  await recordConsent(
    tx,
    projectId,
    changed.map((c) => ({ ...cause.origin, contactId: c.id, action: consentActionOf(subscribed), at })),
  );
  if (cause.announce !== false && changed.length) {
    await queueWebhookDeliveries(
      tx,
      projectId,
      changed.map((c) => contactWebhookEvent('contact.updated', c, at)),
    );
  }
  return changed;
}

/** The event a change to `subscribed` records. */
export const subscriptionEventName = (subscribed: boolean) =>
  subscribed ? 'contact.subscribed' : 'contact.unsubscribed';

/** The consent entry a change to `subscribed` records. */
const consentActionOf = (subscribed: boolean) => (subscribed ? 'subscribed' : 'unsubscribed');

/**
 * The subscription assignment of an upsert's `ON CONFLICT (project_id, email) DO UPDATE` over a
 * contacts row aliased `c`: the explicit state `explicit` (a boolean SQL expression, null to keep the
 * contact's state).
 */
export function subscribedOnConflict(explicit: SQL): SQL {
  return sql`subscribed = coalesce(${explicit}, c.subscribed)`;
}

/** The columns a set-based upsert gives {@link subscriptionChangeCtes}, per upserted contact. */
export type UpsertedSubscription = 'id' | 'is_new' | 'was_subscribed' | 'subscribed' | 'sub_event_id' | 'at';

/**
 * What a set-based upsert's subscription changes record, as two CTEs of its statement (so `/v1/track`
 * and `/v1/send`, group-committed single statements, pay no round trip for them):
 * - `<name>`: the `contact.subscribed` / `contact.unsubscribed` event of each existing contact whose
 *   state flipped, as {@link setSubscription} would record it (no data, causation depth 0): an
 *   `INSERT … RETURNING id, contact_id, name, data, created_at`, the events relation that
 *   webhookDeliveries and workflowDispatchJobs take (`rel`);
 * - `<name>_consent`: the consent entry of each such flip, and `subscribed` for each contact the
 *   statement created subscribed, from `origin` (consent/consent.ts consentInsert).
 * `rows` needs, per contact, `id`, `is_new`, `was_subscribed` (the state right before, null for a new
 * contact), `subscribed` (after), and the event's `sub_event_id` and `at` (contacts.upsert.ts
 * `UpsertCtes.upserted`, or a superset of it).
 */
export function subscriptionChangeCtes(
  name: string,
  projectId: string,
  rows: Relation<UpsertedSubscription>,
  origin: ConsentOrigin,
): { def: SQL; rel: Relation<EventColumns> } {
  const events = cte<EventColumns>(name, flipEvents(projectId, rows));
  const consent = cte<never>(
    `${name}_consent`,
    consentInsert(
      projectId,
      sql`(select r.id as contact_id, case when r.subscribed then 'subscribed' else 'unsubscribed' end as action,
        null::uuid as topic_id, r.at from ${rows.from} r
        where (r.is_new and r.subscribed) or (not r.is_new and r.was_subscribed is not null and r.was_subscribed <> r.subscribed))`,
      origin,
    ),
  );
  return { def: sql`${events.def}, ${consent.def}`, rel: events.rel };
}

/** The flip events of {@link subscriptionChangeCtes}. */
function flipEvents(projectId: string, rows: Relation<UpsertedSubscription>): SQL {
  return sql`insert into events (id, project_id, contact_id, name, data, created_at, causation_depth)
      select r.sub_event_id, ${projectId}, r.id, case when r.subscribed then 'contact.subscribed' else 'contact.unsubscribed' end,
        '{}'::jsonb, r.at, 0
      from ${rows.from} r where not r.is_new and r.was_subscribed is not null and r.was_subscribed <> r.subscribed
      returning id, contact_id, name, data, created_at`;
}

/**
 * Snoozes contacts `contactIds` of project `projectId` until `until` (no marketing mail before then,
 * emails/eligibility.ts), or ends their snooze (`until` null), at `at`, in the caller's transaction.
 * Each contact whose `snoozed_until` changes to a time after `at` records a `snoozed` consent entry
 * from `origin`; ending a snooze records nothing (the consent log has no action for it). Ids of other
 * projects are ignored. No path snoozes yet: the preference centre (issue 35) will.
 * @returns the ids of the contacts whose snooze changed.
 */
export async function snoozeContacts(
  tx: SqlRunner,
  projectId: string,
  contactIds: readonly string[],
  until: Date | null,
  at: Date,
  origin: ConsentOrigin,
): Promise<string[]> {
  if (!contactIds.length) return [];
  const u = until ? until.toISOString() : null;
  const r = await tx.execute<{ id: string }>(sql`
    update contacts c set snoozed_until = ${u}::timestamptz, updated_at = ${at.toISOString()}::timestamptz
    where c.project_id = ${projectId}
      and c.id in (select x::uuid from jsonb_array_elements_text(${JSON.stringify([...new Set(contactIds)])}::jsonb) x)
      and c.snoozed_until is distinct from ${u}::timestamptz
    returning c.id`);
  const ids = r.rows.map((x) => x.id);
  if (until && until > at) {
    await recordConsent(
      tx,
      projectId,
      ids.map((contactId) => ({ ...origin, contactId, action: 'snoozed' as const, at })),
    );
  }
  return ids;
}
