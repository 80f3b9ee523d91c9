import { and, eq, sql } from 'drizzle-orm';
import { contacts, emails, suppressions } from '../db/schema.js';
import { recordEvent } from '../events/emit.js';
import type { EmailRow, Tx } from './emails.repo.js';

/**
 * What happens to an email after it was queued (decisions.md: sending, tracking, delivery states).
 * Status only moves up `PENDING → SENDING → SENT → DELIVERED → OPENED → CLICKED`, or ends in
 * `BOUNCED | COMPLAINED | FAILED | SUPPRESSED`; every move is a conditional UPDATE, so a replay or a
 * race changes nothing twice. Each outcome records its `email.*` event in the same transaction.
 */

/** The common payload of `email.*` events: `{emailId, messageId, subject, templateId?, campaignId?, sourceType}`. */
export function emailEventData(row: Pick<EmailRow, 'id' | 'messageId' | 'subject' | 'templateId' | 'campaignId' | 'sourceType'>, extra: Record<string, unknown> = {}) {
  return {
    emailId: row.id,
    messageId: row.messageId,
    subject: row.subject,
    ...(row.templateId ? { templateId: row.templateId } : {}),
    ...(row.campaignId ? { campaignId: row.campaignId } : {}),
    sourceType: row.sourceType,
    ...extra,
  };
}

async function emit(tx: Tx, row: EmailRow, name: string, at: Date, extra: Record<string, unknown> = {}) {
  await recordEvent(tx, {
    projectId: row.projectId, contactId: row.contactId, name, data: emailEventData(row, extra),
    emailId: row.id, campaignId: row.campaignId, createdAt: at,
  });
}

/**
 * The transport took the message: SENT, and with `delivered` (an SMTP server accepted DATA, i.e. the
 * next hop has it) DELIVERED as well. Stores the rendered subject, so events and the activity feed
 * show what the recipient saw. @returns false when the row was not SENDING.
 */
export async function markSent(tx: Tx, emailId: string, messageId: string, subject: string, delivered: boolean, at: Date): Promise<boolean> {
  const [row] = await tx.update(emails).set({
    status: delivered ? 'DELIVERED' : 'SENT', messageId, subject, error: null, sentAt: at,
    deliveredAt: delivered ? at : null, updatedAt: at,
  }).where(and(eq(emails.id, emailId), eq(emails.status, 'SENDING'))).returning();
  if (!row) return false;
  await emit(tx, row, 'email.sent', at);
  if (delivered) await emit(tx, row, 'email.delivery', at);
  return true;
}

/**
 * A permanent refusal (SMTP 5xx on RCPT or DATA): BOUNCED, `email.bounce` with `bounceType:
 * 'Permanent'`, the contact unsubscribed and the address suppressed (decisions.md: SMTP outcome).
 */
export async function markBounced(tx: Tx, emailId: string, messageId: string, diagnostic: string, at: Date): Promise<boolean> {
  const [row] = await tx.update(emails).set({ status: 'BOUNCED', messageId, error: diagnostic, bouncedAt: at, updatedAt: at })
    .where(and(eq(emails.id, emailId), eq(emails.status, 'SENDING'))).returning();
  if (!row) return false;
  await emit(tx, row, 'email.bounce', at, { bounceType: 'Permanent', diagnostic });
  await suppress(tx, row.projectId, row.toEmail, 'HARD_BOUNCE', at);
  if (row.contactId) await setSubscribed(tx, row.projectId, row.contactId, false, at);
  return true;
}

/** Gives up on an email (retries exhausted, sender no longer verified, …). */
export async function markFailed(tx: Tx, emailId: string, reason: string, at: Date, from: EmailRow['status'][] = ['SENDING']): Promise<void> {
  await tx.update(emails).set({ status: 'FAILED', error: reason.slice(0, 2000), updatedAt: at })
    .where(and(eq(emails.id, emailId), sql`${emails.status} in (select jsonb_array_elements_text(${JSON.stringify(from)}::jsonb))`));
}

/** A temporary failure: back to PENDING (the retry state) with the reason; the job runs again later. */
export async function markRetry(tx: Tx, emailId: string, reason: string, at: Date): Promise<void> {
  await tx.update(emails).set({ status: 'PENDING', error: reason.slice(0, 2000), updatedAt: at })
    .where(and(eq(emails.id, emailId), eq(emails.status, 'SENDING')));
}

/** Adds the address to the project's suppression list (kept when the contact is deleted). */
export async function suppress(tx: Tx, projectId: string, email: string, reason: 'HARD_BOUNCE' | 'COMPLAINT' | 'MANUAL', at: Date): Promise<void> {
  await tx.insert(suppressions).values({ projectId, email, reason, createdAt: at }).onConflictDoNothing();
}

/**
 * Sets a contact's subscription and records `contact.subscribed` / `contact.unsubscribed` when it
 * changed (api.md §6). @returns true when it changed.
 */
export async function setSubscribed(tx: Tx, projectId: string, contactId: string, subscribed: boolean, at: Date): Promise<boolean> {
  const changed = await tx.update(contacts).set({ subscribed, updatedAt: at })
    .where(and(eq(contacts.projectId, projectId), eq(contacts.id, contactId), eq(contacts.subscribed, !subscribed)))
    .returning({ id: contacts.id });
  if (!changed.length) return false;
  await recordEvent(tx, { projectId, contactId, name: subscribed ? 'contact.subscribed' : 'contact.unsubscribed', data: {}, createdAt: at });
  return true;
}

type Row = EmailRow & { was_opened: boolean };
const rowOf = (r: Record<string, unknown>): Row => ({
  id: r.id, projectId: r.project_id, contactId: r.contact_id, messageId: r.message_id, subject: r.subject,
  templateId: r.template_id, campaignId: r.campaign_id, sourceType: r.source_type, was_opened: r.was_opened,
}) as Row;

/**
 * The open pixel loaded: OPENED when lower in the order; `email.open` on the first open only (image
 * proxies and re-reads load the pixel again). Mail that bounced, failed or was never sent is left alone.
 * @returns whether the email exists in a trackable state.
 */
export async function recordOpen(tx: Tx, emailId: string, at: Date): Promise<boolean> {
  const res = await tx.execute(sql`
    with prev as (select id, opened_at from emails where id = ${emailId} for update)
    update emails e set
      status = case when e.status in ('SENT', 'DELIVERED') then 'OPENED' else e.status end,
      opened_at = coalesce(e.opened_at, ${at.toISOString()}::timestamptz), updated_at = ${at.toISOString()}::timestamptz
    from prev where e.id = prev.id and e.status in ('SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'COMPLAINED')
    returning e.*, (prev.opened_at is not null) as was_opened`);
  const r = res.rows[0];
  if (!r) return false;
  const row = rowOf(r);
  if (!row.was_opened) await emit(tx, row, 'email.open', at);
  return true;
}

/**
 * A tracked link was followed: CLICKED when lower in the order, `email.click` with `link` every time,
 * and `email.open` too when no open was seen yet (the pixel may have been blocked).
 * @returns whether the email exists in a trackable state.
 */
export async function recordClick(tx: Tx, emailId: string, link: string, at: Date): Promise<boolean> {
  const res = await tx.execute(sql`
    with prev as (select id, opened_at from emails where id = ${emailId} for update)
    update emails e set
      status = case when e.status in ('SENT', 'DELIVERED', 'OPENED') then 'CLICKED' else e.status end,
      opened_at = coalesce(e.opened_at, ${at.toISOString()}::timestamptz),
      clicked_at = coalesce(e.clicked_at, ${at.toISOString()}::timestamptz), updated_at = ${at.toISOString()}::timestamptz
    from prev where e.id = prev.id and e.status in ('SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'COMPLAINED')
    returning e.*, (prev.opened_at is not null) as was_opened`);
  const r = res.rows[0];
  if (!r) return false;
  const row = rowOf(r);
  if (!row.was_opened) await emit(tx, row, 'email.open', at);
  await emit(tx, row, 'email.click', at, { link });
  return true;
}
