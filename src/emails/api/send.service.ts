import { sql } from 'drizzle-orm';
import { splitData } from '../../contacts/contact-data.js';
import { upsertContact } from '../../contacts/contacts.upsert.js';
import type { TemplateType } from '../../db/schema/messaging.js';
import { assertWithinLimit } from '../../billing/billing.service.js';
import type { Deps } from '../../deps.js';
import { domainOf, senderClearance } from '../../domains/verified.js';
import { AppError, notFound, type FieldError } from '../../http/errors.js';
import { isUuid, newId } from '../../lib/ids.js';
import { isMarketing, mailTopic } from '../eligibility.js';
import * as repo from '../emails.repo.js';
import { queueEmails } from '../queue/queue.js';
import { templateErrors } from '../render/render.js';
import type { SendBody } from './send.schema.js';
import { senderCheck } from './send.sender-check.js';
import { SEND_ORIGIN, sendSingle, type SingleSend } from './send.single.js';
import type { Transaction, Tx } from '../../db/tx.js';
import { LOCALE_KEY } from '../../content/locale.js';
import type { StoredTranslation, StoredTranslations } from '../../content/stored.js';
import { translationFor } from '../../content/translations.js';

/**
 * Limits of `/v1/send`, and `storedBytes`: what one request may store, its recipients
 * times the bytes each recipient's rows take (subject, body, headers, variables, contact data,
 * attachments; issue "Hardening" item 3). 128 MiB leaves room for one recipient of the largest
 * message, for ten recipients of the largest attachments (10 × 10 MB) and for the largest recipient
 * list (1,000) of a 128 KB message, larger than transactional HTML gets (Gmail clips at 102 KB); it
 * keeps what one request writes within about twice the largest body the route accepts (56 MB),
 * where without it 1,000 recipients of 10 MB of attachments would store 10 GB.
 */
export const SEND_LIMITS = {
  attachments: 10,
  attachmentBytes: 10 * 1024 * 1024,
  messageBytes: 40 * 1024 * 1024,
  headerValue: 998,
  storedBytes: 128 * 1024 * 1024,
} as const;

// Declared with the job it is the default of; still exported here for the modules that read it here.

// Header names a caller may not set: they define the message's identity or MIME structure.
const PROTECTED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'sender',
  'subject',
  'date',
  'message-id',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'dkim-signature',
  'return-path',
  'reply-to',
]);
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]+$/; // printable ASCII except ':' (RFC 5322 §2.2)
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface SendOutcome {
  emails: Array<{ contact: { id: string; email: string }; email: string }>;
  timestamp: string;
}

/** What a caller of {@link sendEmails} other than the route adds to its transaction. */
export interface SendOptions {
  /**
   * Runs first in the transaction that stores the rows, before the billing cap is counted: a throw
   * rolls everything back (the SMTP submission server claims the message's idempotency key here, so
   * the claim and the rows commit together or not at all).
   */
  inTransaction?: (tx: Transaction) => Promise<void>;
}

interface Content {
  subject: string;
  body: string;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  type: TemplateType;
  templateId: string | null;
  /** The template's topic for MARKETING mail (eligibility.ts `mailTopic`); null otherwise. */
  topicId: string | null;
  /**
   * The template's translations when the request takes the template's content (no own subject or
   * body): each recipient gets the one of their language (content/translations.ts).
   */
  translations: StoredTranslations | null;
}

/**
 * `POST /v1/send`: checks every rule, upserts each recipient's contact in turn, then queues one
 * `emails` row per recipient with its `emails:send` job in one statement (queue.ts), all in ONE
 * transaction with the shared body and attachments: a failure at any recipient leaves no contact
 * change, row, event or job of the others, so nothing is sent and a retry (even with a new
 * Idempotency-Key) sends each mail once. The common case, one non-MARKETING recipient without
 * attachments in a project without a transactional cap (and no `inTransaction`), needs no explicit
 * transaction: its contact, mail and job are one statement, group-committed with the project's
 * concurrent such sends (send.single.ts); the reply still comes after that statement committed.
 * MARKETING templates skip unsubscribed, suppressed and snoozed contacts, and with a topic those
 * not in it (row status SUPPRESSED, no job). The mail itself leaves in the job (deliver.ts).
 * @throws AppError 404 unknown template; 422 VALIDATION_ERROR with `errors[]` (missing content, inline
 * subject or body that does not parse: code `invalid_template`, header injection, attachment limits,
 * recipients × message size over `SEND_LIMITS.storedBytes` (field `to`, code `too_big`), `from` on an
 * unverified domain: code `unverified_domain`);
 * 429 BILLING_LIMIT_EXCEEDED when the monthly transactional cap would be passed; a value the database
 * refuses is 422 (http/db-errors.ts) for its own request only, also inside a batch.
 */
export async function sendEmails(
  deps: Deps,
  projectId: string,
  input: SendBody,
  opts: SendOptions = {},
): Promise<SendOutcome> {
  const errors: FieldError[] = [];
  const content = await resolveContent(deps, projectId, input, errors);
  checkHeaders(input.headers, errors);
  const attachments = decodeAttachments(input.attachments, errors);
  if (!errors.length) checkMessageSize(content!, input, attachments, errors);
  const recipients = (Array.isArray(input.to) ? input.to : [input.to]).map((r) =>
    typeof r === 'string' ? { email: r, name: undefined } : r,
  );
  const data = splitData(input.data, { allowTransient: true });
  const variables = { ...data.set, ...data.transient };
  if (!errors.length) checkStoredSize(content!, input, recipients.length, variables, data.set, attachments, errors);
  if (errors.length || !content) {
    throw new AppError(
      'VALIDATION_ERROR',
      `Invalid request: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      { errors },
    );
  }

  const check = await senderCheck(deps, projectId, content.fromEmail);
  if (senderClearance(deps, check.verified).kind === 'refused') {
    const message = `The domain ${domainOf(content.fromEmail)} of ${content.fromEmail} is not verified for this project`;
    throw new AppError('VALIDATION_ERROR', message, {
      errors: [{ field: 'from', code: 'unverified_domain', message, received: content.fromEmail }],
      suggestion: 'Add the domain with POST /domains, publish its DNS records and verify it.',
    });
  }

  const now = deps.clock.now();
  // The body and attachments are stored once for all recipients (up to 10 MB of attachments each
  // request: copied per recipient they would multiply by the recipient count). One recipient without
  // attachments keeps the body on its row: stored once all the same, and a round trip less.
  const shared = recipients.length > 1 || attachments.length > 0 || content.translations !== null;
  // The common case, one transactional mail to one recipient with no cap to count: the contact, the
  // mail and its job in ONE statement, atomic without an explicit transaction (no BEGIN, no COMMIT),
  // group-committed with the project's concurrent ones (send.single.ts); a large one goes alone.
  if (!shared && !isMarketing(content.type) && check.limits.transactional === null && !opts.inTransaction) {
    const emailId = newId();
    const single: SingleSend = {
      projectId,
      to: recipients[0],
      data,
      subscribed: input.subscribed,
      mail: {
        id: emailId,
        fromEmail: content.fromEmail,
        fromName: content.fromName,
        replyTo: content.replyTo,
        subject: content.subject,
        body: content.body,
        headers: input.headers ?? {},
        variables,
        type: content.type,
        templateId: content.templateId,
      },
      now,
    };
    const contact = await sendSingle(deps, single);
    return { emails: [{ contact, email: emailId }], timestamp: deps.clock.now().toISOString() };
  }

  const out = await deps.db.transaction(async (tx) => {
    await opts.inTransaction?.(tx);
    // In the transaction that inserts the rows: concurrent sends queue on the cap's lock.
    await assertWithinLimit(tx, projectId, 'transactional', recipients.length, now, check.limits);
    const contentId = shared ? newId() : null;
    if (contentId) {
      await repo.insertContent(tx, { id: contentId, projectId, body: content.body, createdAt: now });
      await repo.insertAttachments(tx, contentId, attachments);
    }
    const sent: SendOutcome['emails'] = [];
    const languages: Array<{ tag: string; t: StoredTranslation } | null> = [];
    for (const r of recipients) {
      const { contact } = await upsertContact(tx, {
        projectId,
        email: r.email,
        data,
        subscribed: input.subscribed,
        defaultSubscribed: false,
        origin: SEND_ORIGIN,
        now,
      });
      sent.push({ contact: { id: contact.id, email: contact.email }, email: newId() });
      languages.push(translationFor(content.translations, contact.data[LOCALE_KEY]));
    }
    const perRow = await translatedRows(tx, projectId, content, contentId!, languages, attachments, now);
    // Every recipient's row and job in one statement, the marketing rule applied per row (an
    // ineligible contact's row is SUPPRESSED, with no job).
    const names = recipients.map((r) => r.name ?? null);
    await queueEmails(tx, {
      values: {
        id: sql`r.id`,
        projectId,
        contactId: sql`r.contact_id`,
        toEmail: sql`contact.email`,
        toName: sql`r.to_name`,
        fromEmail: content.fromEmail,
        fromName: content.fromName,
        replyTo: content.replyTo,
        subject: content.subject,
        body: contentId ? null : content.body,
        contentId,
        ...perRow?.values,
        headers: input.headers ?? {},
        variables,
        type: content.type,
        sourceType: 'TRANSACTIONAL',
        templateId: content.templateId,
        topicId: content.topicId,
        createdAt: now,
        updatedAt: now,
      },
      from: sql`unnest(${sql.param(sent.map((s) => s.email))}::uuid[], ${sql.param(sent.map((s) => s.contact.id))}::uuid[],
          ${sql.param(names)}::text[]${perRow?.columns ?? sql``}) as r(id, contact_id, to_name${perRow ? sql`, locale, subject, from_name, content_id` : sql``})
        join contacts contact on contact.id = r.contact_id`,
      marketing: isMarketing(content.type) ? { now, topicId: content.topicId } : undefined,
      jobs: 'each',
    });
    return sent;
  });
  return { emails: out, timestamp: deps.clock.now().toISOString() };
}

/** Template fields (subject, body, from, name), overridden by the request's own. */
async function resolveContent(
  deps: Deps,
  projectId: string,
  input: SendBody,
  errors: FieldError[],
): Promise<Content | undefined> {
  let template: repo.TemplateRow | undefined;
  if (input.template !== undefined) {
    if (!isUuid(input.template)) throw notFound('Template');
    template = await repo.getTemplate(deps.db, projectId, input.template);
    if (!template) throw notFound('Template');
  } else {
    const need = 'Required unless a template is given';
    if (input.subject === undefined)
      errors.push({ field: 'subject', code: 'invalid_type', message: need, received: 'undefined' });
    if (input.body === undefined)
      errors.push({ field: 'body', code: 'invalid_type', message: need, received: 'undefined' });
  }
  // Inline content is checked like a saved template (templates were checked when saved).
  errors.push(...templateErrors({ subject: input.subject, body: input.body }));
  const fromObj = typeof input.from === 'object' ? input.from : undefined;
  const fromEmail = (typeof input.from === 'string' ? input.from : fromObj?.email) ?? template?.from;
  if (!fromEmail) {
    errors.push({
      field: 'from',
      code: 'invalid_type',
      message: 'Required unless the template has a sender',
      received: 'undefined',
    });
  }
  if (errors.length || !fromEmail) return undefined;
  // `name` is the deprecated fallback for a string `from` only.
  const fromName = (fromObj ? fromObj.name : input.name) || template?.fromName || null;
  return {
    subject: input.subject ?? template!.subject,
    body: input.body ?? template!.body,
    fromEmail: fromEmail.trim(),
    fromName: fromName ? fromName.replace(/[\r\n]+/g, ' ') : null,
    replyTo: input.reply ?? template?.replyTo ?? null,
    type: template?.type ?? 'TRANSACTIONAL',
    templateId: template?.id ?? null,
    topicId: template ? mailTopic(template.type, template.topicId) : null,
    // A request that writes its own subject or body has chosen its words: no translation replaces them.
    translations:
      template?.translations &&
      input.subject === undefined &&
      input.body === undefined &&
      Object.keys(template.translations).length
        ? template.translations
        : null,
  };
}

/**
 * The per-recipient columns of a send whose template has translations: each recipient's language, subject,
 * sender name and body (one stored content per language used, with the request's attachments), as
 * extra `unnest` arrays and the values that read them. Null when the content has no translations.
 */
async function translatedRows(
  tx: Tx,
  projectId: string,
  content: Content,
  defaultContentId: string,
  languages: Array<{ tag: string; t: StoredTranslation } | null>,
  attachments: Parameters<typeof repo.insertAttachments>[2],
  now: Date,
) {
  if (!content.translations) return null;
  const contentIds = new Map<string, string>();
  for (const l of languages) {
    if (!l || contentIds.has(l.tag)) continue;
    const id = newId();
    contentIds.set(l.tag, id);
    await repo.insertContent(tx, { id, projectId, body: l.t.body, createdAt: now });
    await repo.insertAttachments(tx, id, attachments);
  }
  const col = <T>(f: (l: { tag: string; t: StoredTranslation } | null) => T) => sql.param(languages.map(f));
  return {
    columns: sql`, ${col((l) => l?.tag ?? null)}::text[], ${col((l) => l?.t.subject ?? content.subject)}::text[],
      ${col((l) => (l ? (l.t.fromName ?? content.fromName) : content.fromName))}::text[],
      ${col((l) => (l ? contentIds.get(l.tag)! : defaultContentId))}::uuid[]`,
    values: {
      locale: sql`r.locale`,
      subject: sql`r.subject`,
      fromName: sql`r.from_name`,
      contentId: sql`r.content_id`,
    },
  };
}

/**
 * Whether a caller may set the header `name` itself (`headers` of `/v1/send`, the headers an SMTP
 * submission keeps): printable ASCII without ':' (RFC 5322 §2.2), and not one of the headers the
 * service writes (From, To, Subject, Message-ID, the MIME structure, DKIM-Signature…).
 */
export function isCustomHeaderAllowed(name: string): boolean {
  return HEADER_NAME.test(name) && !PROTECTED_HEADERS.has(name.toLowerCase());
}

/** Custom headers: no CR/LF anywhere, values <= 998 characters (RFC 5322 §2.1.1). */
function checkHeaders(headers: Record<string, string> | undefined, errors: FieldError[]): void {
  for (const [name, value] of Object.entries(headers ?? {})) {
    const field = `headers.${name}`;
    if (/[\r\n]/.test(name))
      errors.push({ field, code: 'invalid_string', message: 'Header names must not contain CR or LF' });
    else if (!HEADER_NAME.test(name))
      errors.push({
        field,
        code: 'invalid_string',
        message: 'Header names are printable ASCII without spaces or colons',
      });
    else if (PROTECTED_HEADERS.has(name.toLowerCase()))
      errors.push({
        field,
        code: 'custom',
        message: `The ${name} header is set by the service; use the request's own fields`,
      });
    if (/[\r\n]/.test(value))
      errors.push({ field, code: 'invalid_string', message: 'Header values must not contain CR or LF' });
    if (value.length > SEND_LIMITS.headerValue)
      errors.push({
        field,
        code: 'too_big',
        message: `Header values are at most ${SEND_LIMITS.headerValue} characters`,
      });
  }
}

function decodeAttachments(list: SendBody['attachments'], errors: FieldError[]): repo.AttachmentData[] {
  const out: repo.AttachmentData[] = [];
  let total = 0;
  (list ?? []).forEach((a, i) => {
    const b64 = a.content.replace(/\s+/g, '');
    if (!BASE64.test(b64) || b64.length % 4 === 1) {
      errors.push({
        field: `attachments.${i}.content`,
        code: 'invalid_string',
        message: 'Attachment content must be base64',
      });
      return;
    }
    const content = Buffer.from(b64, 'base64');
    total += content.length;
    out.push({ filename: a.filename, contentType: a.contentType, content });
  });
  if (total > SEND_LIMITS.attachmentBytes) {
    errors.push({
      field: 'attachments',
      code: 'too_big',
      message: `Attachments total ${total} bytes; the limit is ${SEND_LIMITS.attachmentBytes} bytes (10 MB)`,
    });
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
    errors.push({
      field: 'body',
      code: 'too_big',
      message: `The message would be about ${Math.round(size)} bytes; the limit is ${SEND_LIMITS.messageBytes} bytes (40 MB)`,
    });
  }
}

/**
 * What the request would store: per recipient its `emails` row (subject, body, headers, variables),
 * its attachments and the data merged into its contact; refused over `SEND_LIMITS.storedBytes`.
 */
function checkStoredSize(
  c: Content,
  input: SendBody,
  recipients: number,
  variables: Record<string, unknown>,
  contactData: Record<string, unknown>,
  attachments: repo.AttachmentData[],
  errors: FieldError[],
): void {
  const json = (v: unknown) => Buffer.byteLength(JSON.stringify(v ?? {}));
  const perRecipient =
    Buffer.byteLength(c.subject) +
    Buffer.byteLength(c.body) +
    json(input.headers) +
    json(variables) +
    json(contactData) +
    attachments.reduce((n, a) => n + a.content.length, 0);
  const total = perRecipient * recipients;
  if (total > SEND_LIMITS.storedBytes) {
    errors.push({
      field: 'to',
      code: 'too_big',
      message: `${recipients} recipients × ${perRecipient} bytes of message each would store ${total} bytes; one request may store at most ${SEND_LIMITS.storedBytes} bytes (128 MiB): send fewer recipients per request or a smaller message`,
    });
  }
}
