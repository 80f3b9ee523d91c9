import { splitData } from '../contacts/contact-data.js';
import { upsertContact } from '../contacts/contacts.upsert.js';
import type { TemplateType } from '../db/schema/messaging.js';
import type { Deps } from '../deps.js';
import { domainOf, findVerifiedDomain } from '../domains/verified.js';
import { AppError, notFound, type FieldError } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { addJob } from '../worker/queue.js';
import * as repo from './emails.repo.js';
import type { SendBody } from './send.schema.js';

/** Limits of `/v1/send` (api.md §8). */
export const SEND_LIMITS = {
  attachments: 10,
  attachmentBytes: 10 * 1024 * 1024,
  messageBytes: 40 * 1024 * 1024,
  headerValue: 998,
} as const;

/** Delivery attempts of one email before it is FAILED (Graphile Worker's backoff: e^n seconds). */
export const DELIVERY_MAX_ATTEMPTS = 10;

// Header names a caller may not set: they define the message's identity or MIME structure.
const PROTECTED_HEADERS = new Set([
  'from', 'to', 'cc', 'bcc', 'sender', 'subject', 'date', 'message-id', 'mime-version', 'content-type',
  'content-transfer-encoding', 'dkim-signature', 'return-path', 'reply-to',
]);
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]+$/; // printable ASCII except ':' (RFC 5322 §2.2)
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface SendOutcome {
  emails: Array<{ contact: { id: string; email: string }; email: string }>;
  timestamp: string;
}

interface Content {
  subject: string;
  body: string;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  type: TemplateType;
  templateId: string | null;
}

/**
 * `POST /v1/send` (api.md §4.1): checks every rule, then per recipient, sequentially, upserts the
 * contact and stores one `emails` row with its attachments and its `emails:send` job in one
 * transaction. MARKETING templates skip unsubscribed, suppressed and snoozed contacts (row status
 * SUPPRESSED, no job). The mail itself leaves in the job (deliver.ts).
 * @throws AppError 404 unknown template; 422 VALIDATION_ERROR with `errors[]` (missing content,
 * header injection, attachment limits, `from` on an unverified domain: code `unverified_domain`);
 * 429 BILLING_LIMIT_EXCEEDED when the monthly transactional cap would be passed.
 */
export async function sendEmails(deps: Deps, projectId: string, input: SendBody): Promise<SendOutcome> {
  const errors: FieldError[] = [];
  const content = await resolveContent(deps, projectId, input, errors);
  checkHeaders(input.headers, errors);
  const attachments = decodeAttachments(input.attachments, errors);
  if (!errors.length) checkMessageSize(content!, input, attachments, errors);
  if (errors.length || !content) {
    throw new AppError('VALIDATION_ERROR', `Invalid request: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, { errors });
  }

  const domain = await findVerifiedDomain(deps.db, projectId, content.fromEmail);
  if (!domain) {
    const message = `The domain ${domainOf(content.fromEmail)} of ${content.fromEmail} is not verified for this project`;
    throw new AppError('VALIDATION_ERROR', message, {
      errors: [{ field: 'from', code: 'unverified_domain', message, received: content.fromEmail }],
      suggestion: 'Add the domain with POST /domains, publish its DNS records and verify it.',
    });
  }

  const recipients = (Array.isArray(input.to) ? input.to : [input.to])
    .map((r) => (typeof r === 'string' ? { email: r, name: undefined } : r));
  const now = deps.clock.now();
  await checkBillingLimit(deps, projectId, recipients.length, now);

  const data = splitData(input.data, { allowTransient: true });
  const variables = { ...data.set, ...data.transient };
  const out: SendOutcome['emails'] = [];
  for (const r of recipients) {
    const emailId = newId();
    const contact = await deps.db.transaction(async (tx) => {
      const { contact } = await upsertContact(tx, {
        projectId, email: r.email, data, subscribed: input.subscribed, defaultSubscribed: false,
        emitSubscriptionEvents: true, now,
      });
      const skip = content.type === 'MARKETING' && (!contact.subscribed
        || (contact.snoozedUntil !== null && contact.snoozedUntil > now)
        || await repo.isSuppressed(tx, projectId, contact.email));
      await repo.insertEmail(tx, {
        id: emailId, projectId, contactId: contact.id, toEmail: contact.email, toName: r.name ?? null,
        fromEmail: content.fromEmail, fromName: content.fromName, replyTo: content.replyTo,
        subject: content.subject, body: content.body, headers: input.headers ?? {}, variables,
        type: content.type, sourceType: 'TRANSACTIONAL', templateId: content.templateId,
        status: skip ? 'SUPPRESSED' : 'PENDING',
        error: skip ? 'Contact is unsubscribed, suppressed or snoozed; marketing mail skipped' : null,
        createdAt: now, updatedAt: now,
      });
      if (!skip) {
        await repo.insertAttachments(tx, emailId, attachments);
        await addJob(tx, 'emails:send', { emailId }, { maxAttempts: DELIVERY_MAX_ATTEMPTS });
      }
      return contact;
    });
    out.push({ contact: { id: contact.id, email: contact.email }, email: emailId });
  }
  return { emails: out, timestamp: deps.clock.now().toISOString() };
}

/** Template fields, overridden by the request's own (api.md §4.1 template, from, name). */
async function resolveContent(deps: Deps, projectId: string, input: SendBody, errors: FieldError[]): Promise<Content | undefined> {
  let template: repo.TemplateRow | undefined;
  if (input.template !== undefined) {
    if (!isUuid(input.template)) throw notFound('Template');
    template = await repo.getTemplate(deps.db, projectId, input.template);
    if (!template) throw notFound('Template');
  } else {
    const need = 'Required unless a template is given';
    if (input.subject === undefined) errors.push({ field: 'subject', code: 'invalid_type', message: need, received: 'undefined' });
    if (input.body === undefined) errors.push({ field: 'body', code: 'invalid_type', message: need, received: 'undefined' });
  }
  const fromObj = typeof input.from === 'object' ? input.from : undefined;
  const fromEmail = (typeof input.from === 'string' ? input.from : fromObj?.email) ?? template?.from;
  if (!fromEmail) {
    errors.push({ field: 'from', code: 'invalid_type', message: 'Required unless the template has a sender', received: 'undefined' });
  }
  if (errors.length || !fromEmail) return undefined;
  // `name` is the deprecated fallback for a string `from` only (api.md §4.1).
  const fromName = (fromObj ? fromObj.name : input.name) || template?.fromName || null;
  return {
    subject: input.subject ?? template!.subject,
    body: input.body ?? template!.body,
    fromEmail: fromEmail.trim(),
    fromName: fromName ? fromName.replace(/[\r\n]+/g, ' ') : null,
    replyTo: input.reply ?? template?.replyTo ?? null,
    type: template?.type ?? 'TRANSACTIONAL',
    templateId: template?.id ?? null,
  };
}

/** Custom headers: no CR/LF anywhere, values <= 998 characters (api.md §4.1, §8). */
function checkHeaders(headers: Record<string, string> | undefined, errors: FieldError[]): void {
  for (const [name, value] of Object.entries(headers ?? {})) {
    const field = `headers.${name}`;
    if (/[\r\n]/.test(name)) errors.push({ field, code: 'invalid_string', message: 'Header names must not contain CR or LF' });
    else if (!HEADER_NAME.test(name)) errors.push({ field, code: 'invalid_string', message: 'Header names are printable ASCII without spaces or colons' });
    else if (PROTECTED_HEADERS.has(name.toLowerCase())) errors.push({ field, code: 'custom', message: `The ${name} header is set by the service; use the request's own fields` });
    if (/[\r\n]/.test(value)) errors.push({ field, code: 'invalid_string', message: 'Header values must not contain CR or LF' });
    if (value.length > SEND_LIMITS.headerValue) errors.push({ field, code: 'too_big', message: `Header values are at most ${SEND_LIMITS.headerValue} characters` });
  }
}

function decodeAttachments(list: SendBody['attachments'], errors: FieldError[]): repo.AttachmentData[] {
  const out: repo.AttachmentData[] = [];
  let total = 0;
  (list ?? []).forEach((a, i) => {
    const b64 = a.content.replace(/\s+/g, '');
    if (!BASE64.test(b64) || b64.length % 4 === 1) {
      errors.push({ field: `attachments.${i}.content`, code: 'invalid_string', message: 'Attachment content must be base64' });
      return;
    }
    const content = Buffer.from(b64, 'base64');
    total += content.length;
    out.push({ filename: a.filename, contentType: a.contentType, content });
  });
  if (total > SEND_LIMITS.attachmentBytes) {
    errors.push({ field: 'attachments', code: 'too_big', message: `Attachments total ${total} bytes; the limit is ${SEND_LIMITS.attachmentBytes} bytes (10 MB)` });
  }
  return out;
}

/** Estimated size of the built message: HTML and its text part, headers, base64 attachments. */
function checkMessageSize(c: Content, input: SendBody, attachments: repo.AttachmentData[], errors: FieldError[]): void {
  const body = Buffer.byteLength(c.body);
  const headers = Object.entries(input.headers ?? {}).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  const files = attachments.reduce((n, a) => n + Math.ceil(a.content.length / 3) * 4 * (78 / 76), 0);
  const size = body * 2 + Buffer.byteLength(c.subject) + headers + files + 4096;
  if (size > SEND_LIMITS.messageBytes) {
    errors.push({ field: 'body', code: 'too_big', message: `The message would be about ${Math.round(size)} bytes; the limit is ${SEND_LIMITS.messageBytes} bytes (40 MB)` });
  }
}

/**
 * Monthly cap of transactional mail (decisions.md: billing limits; calendar month, UTC).
 * @throws AppError 429 BILLING_LIMIT_EXCEEDED
 */
async function checkBillingLimit(deps: Deps, projectId: string, count: number, now: Date): Promise<void> {
  const settings = await repo.getProjectSettings(deps.db, projectId);
  const cap = settings?.billingLimits?.transactional;
  if (cap === null || cap === undefined) return;
  const periodStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const used = await repo.countTransactionalSince(deps.db, projectId, periodStart);
  if (used + count > cap) {
    throw new AppError('BILLING_LIMIT_EXCEEDED', `The monthly transactional email limit of ${cap} is reached (${used} used)`, {
      details: { limit: cap, used, requested: count, periodStart: periodStart.toISOString() },
      suggestion: 'Raise the limit with PUT /users/@me/projects/:id/billing-limits or wait for the next month.',
    });
  }
}
