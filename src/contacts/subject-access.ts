import { sql } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';

/** At most this many of the contact's events are included (newest first); `truncated.events` says when more exist. */
export const SAR_MAX_EVENTS = 10_000;
/** At most this many of the contact's emails, with their content, are included (newest first). */
export const SAR_MAX_EMAILS = 2_000;

const ts = (col: string) => sql.raw(`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/**
 * `GET /contacts/:id/export` (GDPR Art. 15, subject access): one JSON document with everything Pigeon
 * holds about contact `contactId`: `contact` (address, subscription, snooze, data, times), `topics`
 * (memberships with the topic's name), `segments` (names of static and computed segments it is in),
 * `consent` (the consent log), `suppression` of its address, `formSignups`, `events` (newest
 * {@link SAR_MAX_EVENTS}) and `emails` (newest {@link SAR_MAX_EMAILS}: sender, subject, body template,
 * its variables and headers, status and times); `truncated` says whether older events or emails were
 * left out. Bounded: memory holds at most those rows. Every part is a query of its own, in one
 * repeatable-read snapshot so the parts agree.
 * @throws AppError 404 for an unknown contact, another project's, or a non-uuid id.
 */
export async function subjectAccess(
  deps: Deps,
  projectId: string,
  contactId: string,
): Promise<Record<string, unknown>> {
  if (!isUuid(contactId)) throw notFound('Contact');
  return deps.db.transaction(
    async (tx) => {
      const q = async (text: ReturnType<typeof sql>) => (await tx.execute<Record<string, unknown>>(text)).rows;
      const [contact] = await q(sql`select id, email, subscribed, ${ts('snoozed_until')} as "snoozedUntil", data,
          ${ts('created_at')} as "createdAt", ${ts('updated_at')} as "updatedAt"
        from contacts where id = ${contactId} and project_id = ${projectId}`);
      if (!contact) throw notFound('Contact');
      const email = contact.email as string;
      const topics = await q(sql`select t.id, t.name, ct.subscribed, ${ts('ct.updated_at')} as "updatedAt"
        from contact_topics ct join topics t on t.id = ct.topic_id where ct.contact_id = ${contactId} order by t.name`);
      const segments = await q(sql`select s.id, s.name from segment_members m join segments s on s.id = m.segment_id
        where m.contact_id = ${contactId} order by s.name`);
      const consent = await q(sql`select id, action, topic_id as "topicId", source, form_id as "formId", ip,
          user_agent as "userAgent", ${ts('created_at')} as "createdAt"
        from consent_events where contact_id = ${contactId} order by id`);
      const [suppression] = await q(sql`select reason, ${ts('created_at')} as "createdAt" from suppressions
        where project_id = ${projectId} and email = ${email}`);
      const formSignups =
        await q(sql`select s.form_id as "formId", f.name as "formName", ${ts('s.created_at')} as "createdAt",
          ${ts('s.confirmed_at')} as "confirmedAt"
        from form_signups s left join forms f on f.id = s.form_id where s.contact_id = ${contactId} order by s.created_at`);
      const events = await q(sql`select id, name, data, email_id as "emailId", campaign_id as "campaignId",
          ${ts('created_at')} as "createdAt"
        from events where project_id = ${projectId} and contact_id = ${contactId}
        order by created_at desc limit ${SAR_MAX_EVENTS + 1}`);
      const emails =
        await q(sql`select e.id, e.to_email as "toEmail", e.to_name as "toName", e.from_email as "fromEmail",
          e.from_name as "fromName", e.reply_to as "replyTo", e.subject, coalesce(e.body, c.body) as body, e.headers,
          e.variables, e.type, e.status, e.campaign_id as "campaignId", e.template_id as "templateId",
          ${ts('e.created_at')} as "createdAt", ${ts('e.sent_at')} as "sentAt", ${ts('e.delivered_at')} as "deliveredAt",
          ${ts('e.opened_at')} as "openedAt", ${ts('e.clicked_at')} as "clickedAt", ${ts('e.bounced_at')} as "bouncedAt",
          ${ts('e.complained_at')} as "complainedAt"
        from emails e left join email_contents c on c.id = e.content_id
        where e.project_id = ${projectId} and (e.contact_id = ${contactId} or e.to_email = ${email})
        order by e.created_at desc limit ${SAR_MAX_EMAILS + 1}`);
      return {
        exportedAt: deps.clock.now().toISOString(),
        contact,
        topics,
        segments,
        consent,
        suppression: suppression ?? null,
        formSignups,
        events: events.slice(0, SAR_MAX_EVENTS),
        emails: emails.slice(0, SAR_MAX_EMAILS),
        truncated: { events: events.length > SAR_MAX_EVENTS, emails: emails.length > SAR_MAX_EMAILS },
      };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
