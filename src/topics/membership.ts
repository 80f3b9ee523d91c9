import { sql, type SQL } from 'drizzle-orm';
import { recordConsent, type ConsentOrigin } from '../consent/consent.js';
import type { SqlRunner } from '../db/tx.js';
import { relation } from '../db/relation.js';
import type { EventColumns } from '../events/event-relation.js';
import { workflowDispatchJobs } from '../events/emit.js';
import { AppError } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { webhookDeliveries } from '../webhook-endpoints/fanout.js';

/**
 * Topic membership (issue 35), the rule and its one writer. A contact is in topic `t` when
 * - `t` is `opt-out` and the contact has not left it (no `contact_topics` row with `subscribed = false`), or
 * - `t` is `opt-in` and the contact joined it (a row with `subscribed = true`).
 * `contacts.subscribed = false` is the master switch over every topic; that part stays in the marketing
 * rule (emails/eligibility.ts), which adds this predicate for mail that has a topic. `contact_topics`
 * is written here alone ({@link setTopicsOfContacts}, {@link setContactTopics} for one contact), with
 * each change's consent entry and event.
 */

/**
 * The rule as a SQL predicate: true when the contact whose id is the expression `contactId` is in the
 * topic whose id is `topicId` (uuid expressions; they may name columns of the caller's query, whose
 * aliases must not be `_topic` or `_choice`), null when there is no such topic. The contact's own
 * choice decides when there is one (rows go with their topic, ON DELETE CASCADE), else the topic's
 * default. One index look-up on `contact_topics_pk` per row; the topic's default is read once per
 * query when `topicId` is a constant (PostgreSQL runs the uncorrelated sub-select as an InitPlan), so a
 * campaign's fan-out pays no topics look-up per contact.
 */
export function inTopicSql(contactId: SQL, topicId: SQL): SQL {
  return sql`coalesce(
    (select _choice.subscribed from contact_topics _choice where _choice.topic_id = ${topicId} and _choice.contact_id = ${contactId}),
    (select _topic.subscription_default = 'opt-out' from topics _topic where _topic.id = ${topicId}))`;
}

/**
 * The rule counted, as a SQL expression over a topics row aliased `topic` of project `projectId`: the
 * subscribed contacts in it (the master switch applied). An opt-in topic counts those who joined; an
 * opt-out topic, the project's subscribed contacts less those who left (that count is uncorrelated, so
 * one query listing every topic counts the project's contacts once).
 */
export function topicMembersSql(projectId: string, topic: SQL): SQL {
  const choices = (joined: boolean) => sql`(select count(*)::int from contact_topics _ct
      join contacts _c on _c.id = _ct.contact_id and _c.subscribed
      where _ct.topic_id = ${topic}.id and _ct.subscribed = ${joined})`;
  return sql`case when ${topic}.subscription_default = 'opt-out'
      then (select count(*)::int from contacts _c where _c.project_id = ${projectId}::uuid and _c.subscribed) - ${choices(false)}
      else ${choices(true)} end`;
}

/** A membership that changed: `subscribed` is the contact's membership after the change. */
export type TopicChange = {
  topicId: string;
  topicName: string;
  subscribed: boolean;
};

/** The events a membership change records (they flow to workflows and event webhooks). */
export const topicEventName = (joined: boolean) => (joined ? 'topic.joined' : 'topic.left');

/**
 * Sets contact `contactId`'s membership of the topics in `choices` (topic id → true to join, false to
 * leave), in the caller's transaction `tx`, at `at`: {@link setTopicsOfContacts} for one contact.
 * @returns the changes made, by topic name.
 * @throws AppError 404 when the contact is not the project's.
 */
export async function setContactTopics(
  tx: SqlRunner,
  projectId: string,
  contactId: string,
  choices: ReadonlyMap<string, boolean>,
  at: Date,
  origin: ConsentOrigin,
): Promise<TopicChange[]> {
  const changes = await setTopicsOfContacts(tx, projectId, [{ contactId, choices }], at, origin);
  return changes.map((c) => ({ topicId: c.topicId, topicName: c.topicName, subscribed: c.subscribed }));
}

/**
 * Sets each listed contact's membership of the topics in its `choices` (topic id → true to join,
 * false to leave), in the caller's transaction `tx`, at `at`, set-based: a few statements however many
 * contacts (the CSV import passes a batch). A choice is stored as made, even where it matches the
 * topic's default (joining an opt-out topic), so it stays the reader's if the default changes later.
 * Only a real change of membership (by the rule above) records a consent entry (`joined`/`left`, from
 * `origin`) and a `topic.joined` or `topic.left` event with data `{topicId, topicName}` (workflows and
 * event webhooks get it like any event). The contact rows are locked first (in id order), so concurrent changes of one contact record
 * each change once. Topic ids must be the project's (resolved by the caller); others are ignored.
 * Contact ids must be distinct.
 * @returns the changes made, by contact (in `entries` order) and topic name.
 * @throws AppError 404 when a contact is not the project's (nothing is written).
 */
export async function setTopicsOfContacts(
  tx: SqlRunner,
  projectId: string,
  entries: ReadonlyArray<{ contactId: string; choices: ReadonlyMap<string, boolean> }>,
  at: Date,
  origin: ConsentOrigin,
): Promise<Array<TopicChange & { contactId: string }>> {
  if (!entries.length) return [];
  const ids = JSON.stringify(entries.map((e) => e.contactId));
  const locked = await tx.execute<{ id: string }>(sql`
    select id from contacts where project_id = ${projectId}::uuid
      and id in (select x::uuid from jsonb_array_elements_text(${ids}::jsonb) x)
    order by id for update`);
  if (locked.rows.length < new Set(entries.map((e) => e.contactId)).size) {
    throw new AppError('RESOURCE_NOT_FOUND', 'Contact not found');
  }
  const input = entries.flatMap((e, n) =>
    [...e.choices].map(([topicId, want]) => ({ n, contact_id: e.contactId, topic_id: topicId, want })),
  );
  if (!input.length) return [];
  const r = await tx.execute<TopicChange & { contactId: string }>(sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as x(n int, contact_id uuid, topic_id uuid, want boolean)),
    cur as (
      select i.n, i.contact_id, t.id, t.name, i.want, ${inTopicSql(sql`i.contact_id`, sql`t.id`)} as now_in,
        ct.subscribed as stored
      from topics t join input i on i.topic_id = t.id
      left join contact_topics ct on ct.topic_id = t.id and ct.contact_id = i.contact_id
      where t.project_id = ${projectId}::uuid),
    up as (
      insert into contact_topics (topic_id, contact_id, project_id, subscribed, updated_at)
      select cur.id, cur.contact_id, ${projectId}::uuid, cur.want, ${at.toISOString()}::timestamptz
      from cur where cur.want is distinct from cur.stored
      on conflict (topic_id, contact_id) do update set (subscribed, updated_at) = (excluded.subscribed, excluded.updated_at)
      returning topic_id, contact_id, subscribed)
    select up.contact_id as "contactId", up.topic_id as "topicId", cur.name as "topicName", up.subscribed
    from up join cur on cur.id = up.topic_id and cur.contact_id = up.contact_id
    where cur.want is distinct from cur.now_in
    order by cur.n, lower(cur.name)`);
  const changes = r.rows;
  await recordConsent(
    tx,
    projectId,
    changes.map((c) => ({
      ...origin,
      contactId: c.contactId,
      topicId: c.topicId,
      action: c.subscribed ? 'joined' : 'left',
      at,
    })),
  );
  await recordTopicEvents(tx, projectId, changes, at);
  return changes;
}

/**
 * The `topic.joined` / `topic.left` events of `changes`, in one statement with their event webhook
 * deliveries and workflow dispatch jobs (as events/emit.ts recordEvent writes one event); ids are
 * made here, in the order of `changes`, so the events of one contact sort as its changes (UUIDv7).
 */
async function recordTopicEvents(
  tx: SqlRunner,
  projectId: string,
  changes: ReadonlyArray<TopicChange & { contactId: string }>,
  at: Date,
): Promise<void> {
  if (!changes.length) return;
  const rows = changes.map((c) => ({
    id: newId(),
    contact_id: c.contactId,
    name: topicEventName(c.subscribed),
    data: { topicId: c.topicId, topicName: c.topicName },
  }));
  const inserted = relation<EventColumns>(sql`inserted`);
  await tx.execute(sql`
    with inserted as (
      insert into events (id, project_id, contact_id, name, data, created_at, causation_depth)
      select x.id, ${projectId}::uuid, x.contact_id, x.name, x.data, ${at.toISOString()}::timestamptz, 0
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id uuid, contact_id uuid, name text, data jsonb)
      returning id, contact_id, name, data, created_at),
    webhooks as (${webhookDeliveries(inserted, projectId)})
    ${workflowDispatchJobs(inserted, projectId)}`);
}

/** Every topic of the project with whether contact `contactId` is in it (the master switch aside), by name. */
export async function topicsOfContact(
  db: SqlRunner,
  projectId: string,
  contactId: string,
): Promise<{ id: string; name: string; subscribed: boolean }[]> {
  const r = await db.execute<{ id: string; name: string; subscribed: boolean }>(sql`
    select t.id, t.name, ${inTopicSql(sql`${contactId}::uuid`, sql`t.id`)} as subscribed
    from topics t where t.project_id = ${projectId}::uuid order by lower(t.name)`);
  return r.rows;
}

/** A topic as the preference centre shows it: with its description and whether the contact is in it. */
export type PreferenceTopic = { id: string; name: string; description: string | null; subscribed: boolean };

/**
 * The project's public topics (the preference centre's switches) with whether contact `contactId` is
 * in each (the master switch aside), by name.
 */
export async function publicTopicsOfContact(
  db: SqlRunner,
  projectId: string,
  contactId: string,
): Promise<PreferenceTopic[]> {
  const r = await db.execute<PreferenceTopic>(sql`
    select t.id, t.name, t.description, ${inTopicSql(sql`${contactId}::uuid`, sql`t.id`)} as subscribed
    from topics t where t.project_id = ${projectId}::uuid and t.public order by lower(t.name)`);
  return r.rows;
}

/** Whether contact `contactId` is in topic `topicId` by the rule above (the master switch aside); false for no such topic. */
export async function isInTopic(db: SqlRunner, contactId: string, topicId: string): Promise<boolean> {
  const r = await db.execute<{ subscribed: boolean | null }>(
    sql`select ${inTopicSql(sql`${contactId}::uuid`, sql`${topicId}::uuid`)} as subscribed`,
  );
  return r.rows[0]?.subscribed ?? false;
}
