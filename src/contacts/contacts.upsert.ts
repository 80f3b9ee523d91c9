import { sql, type SQL } from 'drizzle-orm';
import { executePrepared } from '../db/prepared.js';
import { contacts } from '../db/schema.js';
import { workflowDispatchJobs } from '../events/emit.js';
import { newId } from '../lib/ids.js';
import { contactUpsertEvents, webhookDeliveries } from '../webhook-endpoints/fanout.js';
import { normalizeEmail, type DataPatch } from './contact-data.js';
import { subscribedOnConflict, subscriptionChangeCtes } from './subscription.js';
import type { ConsentOrigin } from '../consent/consent.js';
import type { Tx } from '../db/tx.js';
import { relation, unionAll, type Relation } from '../db/relation.js';

export type ContactRow = typeof contacts.$inferSelect;

export interface UpsertInput {
  projectId: string;
  email: string;
  /** From {@link splitData}; `transient` is ignored here. */
  data?: Pick<DataPatch, 'set' | 'unset'>;
  /** Explicit subscription state; undefined keeps an existing contact's state. */
  subscribed?: boolean;
  /** State of a new contact when `subscribed` is undefined (`/v1/send` false, `/v1/track` and POST true). */
  defaultSubscribed: boolean;
  /**
   * When an existing contact gets `contact.updated` webhook deliveries: `changed` (the default) when
   * the upsert changed its data or subscription (`/v1/track`, `/v1/send`: an event tracked again is no
   * update); `always` for an explicit write of the contact (`POST /contacts`).
   */
  announceUpdate?: 'changed' | 'always';
  /** Where the write came from: the consent entry of a subscription it changes (or a new contact's `subscribed`). */
  origin: ConsentOrigin;
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
 * Run it inside the caller's transaction, or alone: the statement is atomic. The same statement
 * queues a new contact's `contact.created` event webhook deliveries, an existing contact's
 * `contact.updated` (when it changed its data or subscription, or always: `announceUpdate`), and
 * records `contact.subscribed` / `contact.unsubscribed` when an existing contact's state flips
 * (subscription.ts) (with that event's webhook deliveries and workflow dispatch jobs, as
 * recordEvent would write them).
 *
 * `also`, when given, is one more data-modifying statement (an `INSERT … RETURNING`) run in the same
 * statement as a CTE named `also`; it may read the upserted contact from `up` (`up.id`, `up.email`).
 * `/v1/send` queues a mail this way, so that one statement, with no explicit transaction, writes the
 * contact, the mail and its job.
 */
export async function upsertContact(tx: Tx, input: UpsertInput, also?: SQL): Promise<UpsertResult> {
  const { projectId } = input;
  // `contact.created` for a new contact; `contact.updated` for an existing one (see `announceUpdate`).
  const announced = input.announceUpdate === 'always' ? sql`true` : sql`(up.is_new or up.changed)`;
  const u = contactUpsertSetCtes(projectId, [contactUpsertRow(input)]);
  const contactEvents = contactUpsertEvents(relation(sql`(select * from ${u.up.from} where ${announced})`), input.now);
  const flipped = subscriptionChangeCtes('flipped', projectId, u.upserted, input.origin);
  const res = await executePrepared<ContactRow & { is_new: boolean; was_subscribed: boolean | null }>(
    tx,
    sql`
    with ${u.ctes}, ${flipped.def},
    webhooks as (${webhookDeliveries(unionAll(flipped.rel, contactEvents), projectId)}),
    jobs as (${workflowDispatchJobs(flipped.rel, projectId)})${also ? sql`, also as (${also})` : sql``}
    select up.*, (select count(*) from jobs) as jobs from up`,
  );
  const row = res.rows[0];
  const contact: ContactRow = {
    id: row.id,
    projectId: row.projectId,
    email: row.email,
    subscribed: row.subscribed,
    data: row.data,
    snoozedUntil: row.snoozedUntil ? new Date(row.snoozedUntil) : null,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  };
  const isNew = row.is_new;
  const subscriptionChanged = !isNew && row.was_subscribed !== null && row.was_subscribed !== row.subscribed;
  return { contact, isNew, subscriptionChanged };
}

/** The columns `up` gives: one row per upserted contact. */
export type UpColumns =
  | 'id'
  | 'projectId'
  | 'email'
  | 'subscribed'
  | 'snoozedUntil'
  | 'data'
  | 'createdAt'
  | 'updatedAt'
  | 'is_new'
  | 'was_subscribed'
  | 'changed';

/** How {@link contactUpsertSetCtes} reads the contacts it upserts. */
export interface UpsertOptions {
  /**
   * Read each existing contact's state before the write, under its row lock (default true): what
   * `was_subscribed` and `changed` report. Only a writer whose rows name no subscription (so none can
   * flip) and that announces every existing contact anyway may skip it (the CSV import's rows without
   * a `subscribed` cell): `up` then has `was_subscribed` null and `changed` false.
   * @throws Error when false and a row names a subscription.
   */
  previousState?: boolean;
}

/** What {@link contactUpsertSetCtes} gives a statement: its WITH items and the relations they make. */
export interface UpsertCtes {
  /** The CTEs `input`, `prev` and `up`, for the statement's WITH list. */
  ctes: SQL;
  /** The upserted contacts (`up`). */
  up: Relation<UpColumns>;
  /** `up` with each row's `sub_event_id` and `at` from its input row: what subscriptionChangeCtes reads. */
  upserted: Relation<UpColumns | 'sub_event_id' | 'at'>;
}

/**
 * The contact upsert rule as three CTEs, `input`, `prev` and `up`, over rows given as one JSON array
 * parameter (so the statement's text never depends on their number and can be prepared). Each row
 * ({@link contactUpsertRow}): `contact_id` (id if created), `sub_event_id` (id of its subscription
 * event if the state flips: subscription.ts {@link subscriptionChangeCtes}), `email` (normalised: {@link normalizeEmail}), `set` (data merged with
 * `||`), `unset` (keys removed), `subscribed` (explicit state, or null to keep an existing contact's),
 * `subscribed_new` (a new contact's state), `at` (ISO time: created/updated), plus any other keys,
 * which later CTEs may read from `input` (e.g. `/v1/track`'s event fields, declared in `extra`).
 * Emails must be distinct: `ON CONFLICT DO UPDATE` cannot touch one row twice in a statement.
 *
 * `up` (the insert `ins` joined to `prev`) gives per contact `id`, `"projectId"`, `email`, `subscribed`, `"snoozedUntil"`, `data`,
 * `"createdAt"`, `"updatedAt"`, `is_new` (xmax = 0 tells an inserted row from an updated one),
 * `was_subscribed` (the state right before, null for a new contact) and `changed` (an existing
 * contact whose data or subscription the statement changed: what `contact.updated` announces).
 *
 * `prev` locks the existing contacts, in email order (so two statements lock shared contacts in the
 * same order), and reads their state right before the update: FOR UPDATE waits for a concurrent writer
 * and reads what it committed, where the statement's snapshot would not, so two concurrent upserts
 * never both report the same flip. One index probe per row (a lateral LIMIT 1: the planner guesses 100
 * rows for any jsonb_to_recordset and would otherwise hash-join a scan of every contact). The insert
 * reads its rows through `prev`, sorted, so `prev` is read to its end first: FOR UPDATE would skip a
 * row this statement had already updated.
 */
export function contactUpsertSetCtes(
  projectId: string,
  rows: Array<Record<string, unknown>>,
  extra: SQL = sql``,
  opts: UpsertOptions = {},
): UpsertCtes {
  // The ON CONFLICT assignments read a row's own input through `excluded` where they can: a look-up
  // in `input` from there is a scan of the CTE per updated row, quadratic in the batch (a 2,000-row
  // import batch over existing contacts spent nearly all its time there). So the statement takes the
  // shape of its rows: no row names a subscription → the contact keeps its own; every row does →
  // `excluded.subscribed` is it; only a mixed batch looks it up, and only a batch with keys to remove
  // looks those up. Its text thus depends on these two facts only (at most six prepared variants).
  const explicit = rows.filter((r) => r.subscribed !== null && r.subscribed !== undefined).length;
  if (opts.previousState === false && explicit > 0) {
    throw new Error('contactUpsertSetCtes: rows that name a subscription need the previous state (a flip is recorded)');
  }
  const subscribed =
    explicit === 0
      ? sql``
      : explicit === rows.length
        ? sql`${subscribedOnConflict(sql`excluded.subscribed`)},`
        : sql`${subscribedOnConflict(sql`(select r.subscribed from input r where r.email = excluded.email)`)},`;
  const unsets = rows.some((r) => Array.isArray(r.unset) && r.unset.length > 0);
  const data = unsets
    ? sql`(c.data || excluded.data) - array(select jsonb_array_elements_text(r.unset) from input r where r.email = excluded.email)`
    : sql`c.data || excluded.data`;
  const ctes = sql`input as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(contact_id uuid, sub_event_id uuid, email text,
        set jsonb, unset jsonb, subscribed boolean, subscribed_new boolean, at timestamptz${extra})),
    prev as (${
      opts.previousState === false
        ? sql`select null::text as email, null::boolean as subscribed, null::jsonb as data where false`
        : sql`select c.email, c.subscribed, c.data from (select email from input order by email) r
      cross join lateral (select email, subscribed, data from contacts
        where project_id = ${projectId} and email = r.email limit 1 for update) c`
    }),
    ins as (
      insert into contacts as c (id, project_id, email, subscribed, data, created_at, updated_at)
      select r.contact_id, ${projectId}, r.email, r.subscribed_new, r.set, r.at, r.at
      from input r left join prev p on p.email = r.email order by r.email
      on conflict (project_id, email) do update set
        data = ${data},
        ${subscribed}
        updated_at = excluded.updated_at
      returning c.id, c.project_id as "projectId", c.email, c.subscribed, c.snoozed_until as "snoozedUntil", c.data,
        c.created_at as "createdAt", c.updated_at as "updatedAt", (xmax = 0) as is_new),
    up as (
      select i.*, p.subscribed as was_subscribed,
        (p.email is not null and (p.data is distinct from i.data or p.subscribed is distinct from i.subscribed)) as changed
      from ins i left join prev p on p.email = i.email)`;
  return {
    ctes,
    up: relation(sql`up`),
    upserted: relation(sql`(select up.*, r.sub_event_id, r.at from up join input r on r.email = up.email)`),
  };
}

/** One upsert as a row of {@link contactUpsertSetCtes}. */
export function contactUpsertRow(input: Omit<UpsertInput, 'projectId' | 'origin'>) {
  return {
    contact_id: newId(),
    sub_event_id: newId(),
    email: normalizeEmail(input.email),
    set: input.data?.set ?? {},
    unset: input.data?.unset ?? [],
    subscribed: input.subscribed ?? null,
    subscribed_new: input.subscribed ?? input.defaultSubscribed,
    at: input.now.toISOString(),
  };
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
