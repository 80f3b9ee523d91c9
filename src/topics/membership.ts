import { sql, type SQL } from 'drizzle-orm';

/**
 * Topic membership, the rule (issue 35): a contact is in topic `t` when
 * - `t` is `opt-out` and the contact has not left it (no `contact_topics` row with `subscribed = false`), or
 * - `t` is `opt-in` and the contact joined it (a row with `subscribed = true`).
 * `contacts.subscribed = false` is the master switch over every topic; that part stays in the marketing
 * rule (emails/eligibility.ts), which adds this predicate for mail that has a topic. Changes of
 * `contact_topics` are written by this folder's membership writer alone, with their consent entries.
 */

/**
 * The rule as a SQL predicate: true when the contact whose id is the expression `contactId` is in the
 * topic whose id is `topicId` (uuid expressions). One index look-up on `contact_topics_pk` per row.
 */
export function inTopicSql(contactId: SQL, topicId: SQL): SQL {
  return sql`(select case t.subscription_default
      when 'opt-out' then coalesce(ct.subscribed, true)
      else coalesce(ct.subscribed, false) end
    from topics t left join contact_topics ct on ct.topic_id = t.id and ct.contact_id = ${contactId}
    where t.id = ${topicId})`;
}
