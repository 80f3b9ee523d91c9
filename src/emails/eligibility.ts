import { sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../db/tx.js';
import { suppressedSql } from '../suppressions/erased.js';
import { inTopicSql } from '../topics/membership.js';

/**
 * Who may get marketing mail: the one rule, used when mail is queued (`/v1/send`, campaign fan-out,
 * workflow SEND_EMAIL) and again when a delivery run claims it, so that a contact who unsubscribes, is
 * suppressed or snoozes after the mail was queued does not get it.
 *
 * MARKETING mail goes only to a contact who is subscribed, not snoozed past `now`, and whose address
 * is not on the project's suppression list (hard bounces, complaints, manual; an erased address by its
 * keyed hash, suppressions/erased.ts); mail sent under a topic
 * (a campaign's `topicId`) also only to the topic's members (topics/membership.ts). A workflow step that
 * sends to a custom address (not the contact's own) checks only the suppression list: the contact's
 * subscription speaks for the contact's address. TRANSACTIONAL and HEADLESS mail goes out whatever the
 * subscription state, and so does a test send (source TEST), which its sender asked for.
 */

/** The `error` of an email skipped by {@link marketingEligibleSql}. */
export const MARKETING_SKIPPED =
  'Contact is unsubscribed, suppressed, snoozed or not in the topic; marketing mail skipped';

/** Whether mail of this template/campaign type is subject to the marketing rule. */
export const isMarketing = (type: string): boolean => type === 'MARKETING';

/**
 * The rule as a SQL predicate over a contacts row aliased `contact` (`id`, `subscribed`,
 * `snoozed_until`, `project_id`, `email`); `toEmail` is the address the mail goes to (default: the
 * contact's own); `topicId` a uuid expression, the topic the mail is sent under (null or absent: none;
 * a topic that no longer exists admits nobody). A custom `toEmail` different from the contact's
 * address skips the subscription and topic checks.
 */
export function marketingEligibleSql(contact: string, now: Date, toEmail?: SQL, topicId?: SQL): SQL {
  const c = sql.raw(contact);
  const to = toEmail ?? sql`${c}.email`;
  const topic = topicId
    ? sql` and (${topicId} is null or coalesce(${inTopicSql(sql`${c}.id`, topicId)}, false))`
    : sql``;
  return sql`((${to} <> ${c}.email or (${c}.subscribed
      and (${c}.snoozed_until is null or ${c}.snoozed_until <= ${now.toISOString()}::timestamptz)${topic}))
    and not ${suppressedSql(sql`${c}.project_id`, to)})`;
}

/**
 * The topic a mail of `type` goes under (its `emails.topic_id`, and the topic the rule checks): `topicId`
 * for MARKETING mail, null for every other type, which ignores topics.
 */
export const mailTopic = (type: string, topicId: string | null | undefined): string | null =>
  isMarketing(type) && topicId ? topicId : null;

/**
 * Applies the rule to one contact in one query: true when MARKETING mail under `topicId` (null or
 * absent: no topic) may go to `toEmail` (default: the contact's address). A missing contact is not eligible.
 */
export async function isMarketingEligible(
  tx: Tx,
  contactId: string,
  now: Date,
  toEmail?: string,
  topicId?: string | null,
): Promise<boolean> {
  const to = toEmail === undefined ? undefined : sql`${toEmail}::text`;
  const topic = topicId ? sql`${topicId}::uuid` : undefined;
  const r = await tx.execute<{ ok: boolean }>(sql`
    select ${marketingEligibleSql('c', now, to, topic)} as ok from contacts c where c.id = ${contactId}`);
  return r.rows[0]?.ok === true;
}
