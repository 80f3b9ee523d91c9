import { sql } from 'drizzle-orm';
import { assertWithinLimit } from '../billing/billing.service.js';
import type { ConsentOrigin } from '../consent/consent.js';
import { normalizeEmail, splitData } from '../contacts/contact-data.js';
import { LOCALE_KEY, shippedLanguage, translator, type ShippedLanguage } from '../content/locale.js';
import { translationFor } from '../content/translations.js';
import { upsertContact } from '../contacts/contacts.upsert.js';
import type { SqlRunner, Transaction } from '../db/tx.js';
import type { Deps } from '../deps.js';
import { getTemplate } from '../emails/emails.repo.js';
import { queueEmail } from '../emails/queue/queue.js';
import { newId } from '../lib/ids.js';
import { setContactTopics } from '../topics/membership.js';
import { confirmToken } from './confirm-token.js';
import type { Submission } from './fields.js';
import { countForm, type PublicForm } from './forms.repo.js';
import { CONFIRM_DAYS } from './html.js';

/**
 * What a submission of a hosted form does (`POST /f/:formId`, after its checks):
 * - without double opt-in, at once: the contact is created or updated with the form's data,
 *   subscribed, and joins the form's topics;
 * - with double opt-in: the contact is created or updated with the form's data, but a new contact
 *   stays unsubscribed and nobody joins a topic (an existing subscribed contact stays subscribed); a
 *   pending sign-up (`form_signups`) holds the rest for `GET /confirm/:token` (confirm.ts), whose
 *   signed link a transactional mail carries. At most one such mail per form and contact goes out in
 *   {@link RESEND_AFTER_MS}; a link works {@link CONFIRM_DAYS} days.
 * Both count the submission. Every change records its consent entry with `origin` (source `form`, the
 * form's id, the visitor's address and user agent) through contacts/subscription.ts and
 * topics/membership.ts. The contact's language (`data.locale`, issue 38) comes from the form when it
 * has a `locale` field, else from the browser (`browserLocale`) for a contact that has none yet.
 */

/** A second confirmation mail for the same pending sign-up waits this long after the first. */
export const RESEND_AFTER_MS = 10 * 60_000;
const LINK_MS = CONFIRM_DAYS * 24 * 3600_000;

/**
 * Takes `sub` for `form` at the clock's now (see the module comment); `browserLocale` (the first
 * language of the visitor's `Accept-Language`, or null) becomes `data.locale` when the submission
 * sets none and the contact has none.
 * @returns whether the visitor must confirm by mail (the form's double opt-in, whether or not a mail
 *   went out this time, so the answer says nothing about the address).
 * @throws AppError 429 BILLING_LIMIT_EXCEEDED when the project's monthly transactional cap leaves no
 *   room for the confirmation mail (nothing is stored).
 */
export async function takeSubmission(
  deps: Deps,
  form: PublicForm,
  sub: Submission,
  origin: ConsentOrigin,
  browserLocale: string | null = null,
): Promise<{ confirmationRequired: boolean }> {
  const now = deps.clock.now();
  const data = splitData(sub.data, { invalidTimeZone: 'drop' });
  await deps.db.transaction(async (tx) => {
    if (browserLocale && !(LOCALE_KEY in data.set) && !(await hasLocale(tx, form.projectId, sub.email)))
      data.set[LOCALE_KEY] = browserLocale;
    const { contact } = await upsertContact(tx, {
      projectId: form.projectId,
      email: sub.email,
      data,
      // Double opt-in leaves an existing contact's state alone and creates a new one unsubscribed.
      subscribed: form.doubleOptIn ? undefined : true,
      defaultSubscribed: !form.doubleOptIn,
      origin,
      now,
    });
    await countForm(tx, form.id, 'submissions');
    if (!form.doubleOptIn) {
      await setContactTopics(tx, form.projectId, contact.id, joinAll(form.topics), now, origin);
      return;
    }
    const signup = await pendingSignup(tx, form, contact.id, now);
    if (signup.send) await queueConfirmation(deps, tx, form, contact, signup, now);
  });
  return { confirmationRequired: form.doubleOptIn };
}

/** Whether the project's contact of `email` exists with a `data.locale` (one the browser must not replace). */
async function hasLocale(tx: Transaction, projectId: string, email: string): Promise<boolean> {
  const r = await tx.execute<{ has: boolean }>(sql`
    select exists(select 1 from contacts where project_id = ${projectId} and email = ${normalizeEmail(email)}
      and data ->> ${LOCALE_KEY} is not null) as has`);
  return r.rows[0]?.has === true;
}

/** Choices that join every topic of `topicIds`. */
export const joinAll = (topicIds: readonly string[]) => new Map(topicIds.map((id) => [id, true]));

/**
 * The pending sign-up of `contactId` on `form`, created or renewed: `send` says whether a confirmation
 * mail goes out now (a new sign-up, an expired one started again, or the last mail older than
 * {@link RESEND_AFTER_MS}); each mail gives the link {@link CONFIRM_DAYS} more days. The row is locked
 * for the rest of the transaction, so two submissions at once send one mail.
 */
async function pendingSignup(
  tx: Transaction,
  form: PublicForm,
  contactId: string,
  now: Date,
): Promise<{ id: string; expiresAt: Date; send: boolean }> {
  const at = now.toISOString();
  const expires = new Date(now.getTime() + LINK_MS);
  const inserted = await tx.execute<{ id: string }>(sql`
    insert into form_signups (id, project_id, form_id, contact_id, created_at, last_sent_at, expires_at)
    values (${newId()}, ${form.projectId}, ${form.id}, ${contactId}, ${at}, ${at}, ${expires.toISOString()})
    on conflict (form_id, contact_id) where confirmed_at is null do nothing
    returning id`);
  if (inserted.rows.length) return { id: inserted.rows[0].id, expiresAt: expires, send: true };
  const r = await tx.execute<{ id: string; last_sent_at: string; expires_at: string }>(sql`
    select id, last_sent_at, expires_at from form_signups
    where form_id = ${form.id} and contact_id = ${contactId} and confirmed_at is null for update`);
  const row = r.rows[0];
  const expired = new Date(row.expires_at) <= now;
  if (!expired && now.getTime() - new Date(row.last_sent_at).getTime() < RESEND_AFTER_MS) {
    return { id: row.id, expiresAt: new Date(row.expires_at), send: false };
  }
  await tx.execute(sql`update form_signups set last_sent_at = ${at}, expires_at = ${expires.toISOString()}
      ${expired ? sql`, created_at = ${at}` : sql``}
    where id = ${row.id}`);
  return { id: row.id, expiresAt: expires, send: true };
}

/**
 * The confirmation mail when the form names no template, in the signer's language (a shipped one, else
 * English): its variables are the mail's own (`projectName`, `confirmUrl`).
 */
function defaultConfirmation(locale: unknown): { subject: string; body: string; lang: ShippedLanguage } {
  const t = translator(shippedLanguage(locale) ?? 'en');
  const project = { project: '{{projectName}}' };
  return {
    lang: t.language,
    subject: t('confirmMail.subject', project),
    // The body is a fragment with no <html> to carry lang: the div says what language it reads in.
    body:
      `<div lang="${t.language}"><p>${t.html('confirmMail.hello')}</p><p>${t.html('confirmMail.text', project)}</p>` +
      `<p><a href="{{confirmUrl}}">${t.html('confirmMail.button')}</a></p>` +
      `<p>${t.html('confirmMail.expiry', { days: String(CONFIRM_DAYS) })}</p></div>`,
  };
}

/**
 * Queues the confirmation mail of `signup` to `contact` in `tx`: transactional (it goes whatever the
 * contact's subscription), from the form's sender, at the priority of mail someone waits for. Its
 * variables are `confirmUrl` (the signed link), `projectName` and `formName`; the form's template
 * when it has one, else a short default text.
 */
async function queueConfirmation(
  deps: Deps,
  tx: Transaction,
  form: PublicForm,
  contact: { id: string; email: string; data: Record<string, unknown> },
  signup: { id: string; expiresAt: Date },
  now: Date,
): Promise<void> {
  await assertWithinLimit(tx, form.projectId, 'transactional', 1, now);
  const template = form.confirmationTemplateId
    ? await getTemplate(tx, form.projectId, form.confirmationTemplateId)
    : undefined;
  // The template's translation of the contact's language (content/translations.ts), else its own words.
  const tr = translationFor(template?.translations, contact.data[LOCALE_KEY]);
  const fallback = template ? null : defaultConfirmation(contact.data[LOCALE_KEY]);
  const confirmUrl = `${deps.config.PUBLIC_URL}/confirm/${confirmToken(deps.secret, signup.id, signup.expiresAt)}`;
  await queueEmail(tx, {
    id: newId(),
    projectId: form.projectId,
    contactId: contact.id,
    toEmail: contact.email,
    toName: null,
    // The form was saved with a sender (forms.service.ts checks it with double opt-in).
    fromEmail: form.fromEmail ?? template?.from ?? '',
    fromName: form.fromName ?? tr?.t.fromName ?? template?.fromName ?? form.projectName,
    replyTo: template?.replyTo ?? null,
    subject: tr?.t.subject ?? template?.subject ?? fallback!.subject,
    body: tr?.t.body ?? template?.body ?? fallback!.body,
    locale: tr?.tag ?? fallback?.lang ?? null,
    headers: {},
    variables: { confirmUrl, projectName: form.projectName, formName: form.name },
    type: 'TRANSACTIONAL',
    sourceType: 'TRANSACTIONAL',
    templateId: template?.id ?? null,
    status: 'PENDING',
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * Deletes the pending sign-ups whose newest link expired before `now` (the `forms:purge-signups` cron,
 * forms.jobs.ts), a batch of at most 10,000 at a time. @returns how many were deleted.
 */
export async function purgeExpiredSignups(db: SqlRunner, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await db.execute(sql`delete from form_signups where id in (
      select id from form_signups where confirmed_at is null and expires_at < ${now.toISOString()}::timestamptz limit 10000)`);
    total += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < 10000) return total;
  }
}
