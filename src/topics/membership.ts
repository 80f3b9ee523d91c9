import { sql, type SQL } from 'drizzle-orm';
import { recordConsent, type ConsentOrigin } from '../consent/consent.js';
import type { SqlRunner } from '../db/tx.js';
import { recordEvent } from '../events/emit.js';
import { AppError } from '../http/errors.js';

/**
 * Topic membership (issue 35), the rule and its one writer. A contact is in topic `t` when
 * - `t` is `opt-out` and the contact has not left it (no `contact_topics` row with `subscribed = false`), or
 * - `t` is `opt-in` and the contact joined it (a row with `subscribed = true`).
 * `contacts.subscribed = false` is the master switch over every topic; that part stays in the marketing
 * rule (emails/eligibility.ts), which adds this predicate for mail that has a topic. `contact_topics`
 * is written here alone ({@link setContactTopics}), with the change's consent entry and event.
 */

/**
 * The rule as a SQL predicate: true when the contact whose id is the expression `contactId` is in the
 * topic whose id is `topicId` (uuid expressions; they may name columns of the caller's query, whose
 * aliases must not be `_topic` or `_choice`), null when there is no such topic. One index look-up on
 * `contact_topics_pk` per row.
 */
export function inTopicSql(contactId: SQL, topicId: SQL): SQL {
  return sql`(select case _topic.subscription_default
      when 'opt-out' then coalesce(_choice.subscribed, true)
      else coalesce(_choice.subscribed, false) end
    from topics _topic left join contact_topics _choice on _choice.topic_id = _topic.id and _choice.contact_id = ${contactId}
    where _topic.id = ${topicId})`;
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
 * leave), in the caller's transaction `tx`, at `at`. The choice is stored as made, even where it
 * matches the topic's default (joining an opt-out topic): it stays the reader's choice if the topic's
 * default changes later. Only a real change of membership (by the rule above) records a consent entry
 * (`joined`/`left`, from `origin`) and a `topic.joined` or `topic.left` event with data
 * `{topicId, topicName}`. The contact row is locked first, so concurrent
 * changes of one contact record each change once. Topic ids must be the project's (resolved by the
 * caller); others are ignored.
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
  const locked = await tx.execute(
    sql`select id from contacts where id = ${contactId}::uuid and project_id = ${projectId}::uuid for update`,
  );
  if (!locked.rows.length) throw new AppError('RESOURCE_NOT_FOUND', 'Contact not found');
  if (!choices.size) return [];
  const input = JSON.stringify(Object.fromEntries(choices));
  const r = await tx.execute<TopicChange>(sql`
    with input as (select key::uuid as topic_id, value::boolean as want from jsonb_each_text(${input}::jsonb)),
    cur as (
      select t.id, t.name, i.want, ${inTopicSql(sql`${contactId}::uuid`, sql`t.id`)} as now_in, ct.subscribed as stored
      from topics t join input i on i.topic_id = t.id
      left join contact_topics ct on ct.topic_id = t.id and ct.contact_id = ${contactId}::uuid
      where t.project_id = ${projectId}::uuid),
    up as (
      insert into contact_topics (topic_id, contact_id, project_id, subscribed, updated_at)
      select cur.id, ${contactId}::uuid, ${projectId}::uuid, cur.want, ${at.toISOString()}::timestamptz
      from cur where cur.want is distinct from cur.stored
      on conflict (topic_id, contact_id) do update set (subscribed, updated_at) = (excluded.subscribed, excluded.updated_at)
      returning topic_id, subscribed)
    select up.topic_id as "topicId", cur.name as "topicName", up.subscribed
    from up join cur on cur.id = up.topic_id where cur.want is distinct from cur.now_in order by lower(cur.name)`);
  const changes = r.rows;
  await recordConsent(
    tx,
    projectId,
    changes.map((c) => ({ ...origin, contactId, topicId: c.topicId, action: c.subscribed ? 'joined' : 'left', at })),
  );
  for (const c of changes) {
    await recordEvent(tx, {
      projectId,
      contactId,
      name: topicEventName(c.subscribed),
      data: { topicId: c.topicId, topicName: c.topicName },
      createdAt: at,
    });
  }
  return changes;
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
