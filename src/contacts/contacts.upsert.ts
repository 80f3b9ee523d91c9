import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { executePrepared } from '../db/prepared.js';
import { contacts } from '../db/schema.js';
import { recordEvent } from '../events/emit.js';
import { newId } from '../lib/ids.js';
import { contactUpsertEvents, webhookDeliveries } from '../webhook-endpoints/fanout.js';
import { normalizeEmail, type DataPatch } from './contact-data.js';

export type ContactRow = typeof contacts.$inferSelect;
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;

export interface UpsertInput {
  projectId: string;
  email: string;
  /** From {@link splitData}; `transient` is ignored here. */
  data?: Pick<DataPatch, 'set' | 'unset'>;
  /** Explicit subscription state; undefined keeps an existing contact's state. */
  subscribed?: boolean;
  /** State of a new contact when `subscribed` is undefined (`/v1/send` false, `/v1/track` and POST true). */
  defaultSubscribed: boolean;
  /** Emit `contact.subscribed`/`contact.unsubscribed` when an existing contact's state flips. */
  emitSubscriptionEvents: boolean;
  now: Date;
}

export interface UpsertResult {
  contact: ContactRow;
  isNew: boolean;
  /** True when an existing contact's `subscribed` changed. */
  subscriptionChanged: boolean;
}

/**
 * Creates or updates a contact by (project, email) in one statement, safe under
 * concurrency: `INSERT … ON CONFLICT DO UPDATE` merges data with `||` and removes nulled keys.
 * Run it inside the caller's transaction. A new contact queues its `contact.created` event webhook
 * deliveries in the same statement.
 */
export async function upsertContact(tx: Tx, input: UpsertInput): Promise<UpsertResult> {
  // The `contact.created` webhook deliveries of a new contact in the same statement (a round trip less).
  const res = await executePrepared<ContactRow & { is_new: boolean; was_subscribed: boolean | null }>(tx, sql`
    with ${contactUpsertCtes(input)},
    created as (${webhookDeliveries(contactUpsertEvents(sql`(select * from up where up.is_new)`, input.now), input.projectId)})
    select * from up`);
  const row = res.rows[0];
  const contact: ContactRow = {
    id: row.id, projectId: row.projectId, email: row.email, subscribed: row.subscribed, data: row.data,
    snoozedUntil: row.snoozedUntil ? new Date(row.snoozedUntil) : null,
    createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt),
  };
  const isNew = row.is_new;
  const subscriptionChanged = !isNew && row.was_subscribed !== null && row.was_subscribed !== row.subscribed;
  if (subscriptionChanged && input.emitSubscriptionEvents) {
    await recordEvent(tx, {
      projectId: input.projectId,
      contactId: contact.id,
      name: contact.subscribed ? 'contact.subscribed' : 'contact.unsubscribed',
      data: {},
      createdAt: input.now,
    });
  }
  return { contact, isNew, subscriptionChanged };
}

/**
 * The upsert of {@link upsertContact} as two CTEs, `prev` and `up`, for callers that write more in the
 * same statement (`/v1/track`): `up` returns the contact (`id`, `"projectId"`, `email`, `subscribed`,
 * `"snoozedUntil"`, `data`, `"createdAt"`, `"updatedAt"`), `is_new` and `was_subscribed` (the state
 * before, null for a new contact).
 */
export function contactUpsertCtes(input: Omit<UpsertInput, 'emitSubscriptionEvents'>): SQL {
  const email = normalizeEmail(input.email);
  const set = input.data?.set ?? {};
  const unset = input.data?.unset ?? [];
  const subscribedNew = input.subscribed ?? input.defaultSubscribed;
  // xmax = 0 tells an inserted row from an updated one. `prev` reads the state right before the update:
  // FOR UPDATE waits for a concurrent writer and reads its committed state (the statement's snapshot
  // would not), so two concurrent upserts never both report the same flip. The insert reads `prev` to
  // its end first: FOR UPDATE would skip the row once this statement has updated it.
  return sql`prev as (
      select subscribed from contacts where project_id = ${input.projectId} and email = ${email} for update
    ),
    up as (
      insert into contacts as c (id, project_id, email, subscribed, data, created_at, updated_at)
      select ${newId()}, ${input.projectId}, ${email}, ${subscribedNew}, ${JSON.stringify(set)}::jsonb, ${input.now.toISOString()}::timestamptz, ${input.now.toISOString()}::timestamptz
      from (select count(*) from prev) locked_first
      on conflict (project_id, email) do update set
        data = (c.data || ${JSON.stringify(set)}::jsonb) - array(select jsonb_array_elements_text(${JSON.stringify(unset)}::jsonb)),
        subscribed = coalesce(${input.subscribed ?? null}::boolean, c.subscribed),
        updated_at = ${input.now.toISOString()}
      returning c.id, c.project_id as "projectId", c.email, c.subscribed, c.snoozed_until as "snoozedUntil", c.data,
        c.created_at as "createdAt", c.updated_at as "updatedAt", (xmax = 0) as is_new,
        (select subscribed from prev) as was_subscribed
    )`;
}

/** A contact as the API returns it. */
export function contactOut(c: ContactRow) {
  return {
    id: c.id,
    email: c.email,
    subscribed: c.subscribed,
    snoozedUntil: c.snoozedUntil ? c.snoozedUntil.toISOString() : null,
    data: c.data,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
