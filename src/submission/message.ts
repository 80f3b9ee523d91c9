import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { sendBody, type SendBody } from '../emails/api/send.schema.js';
import { isCustomHeaderAllowed, SEND_LIMITS } from '../emails/api/send.service.js';
import { AppError } from '../http/errors.js';
import { zodIssuesToFieldErrors } from '../http/zod-issues.js';
import { sha256 } from '../lib/crypto.js';
import { escapeHtml } from '../lib/html.js';

/** A submitted message as `/v1/send` takes it, and the key that makes its submission idempotent. */
export interface Submission {
  input: SendBody;
  /** The Message-ID header (angle brackets included), or a SHA-256 of it when long; null without one. */
  idempotencyKey: string | null;
}

/**
 * Headers that are not the sender's to keep even though `/v1/send` would take them: trace and
 * authentication results of the way the message came (RFC 5321 §4.4, RFC 8601, RFC 8617), and the
 * MIME headers of the top-level entity, which Pigeon writes itself.
 */
const TRACE_HEADER = /^(received|authentication-results|arc-.*|delivered-to|x-original-to|content-.*)$/i;
/** The attachment content types `/v1/send` takes (send.schema.ts). */
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+$/;
const KEY_FORMAT = /^[\x20-\x7E]{1,255}$/;

/**
 * Makes `text` render as itself through the template engine: submitted mail is final, but the
 * stored subject and body are Liquid templates (emails/render/liquid.ts). Each `{` that would open a tag
 * (`{{`, `{%`) is written as the output of the string "{"; any other text passes through as is.
 */
export function literalTemplate(text: string): string {
  return text.replace(/\{(?=[{%])/g, '{{ "{" }}');
}

/** Addresses of the To/Cc/Bcc/From headers, lower-cased address → display name. */
function namesOf(...fields: Array<AddressObject | AddressObject[] | undefined>): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of fields.flat()) {
    for (const a of f?.value ?? []) {
      if (a.address && a.name && !out.has(a.address.toLowerCase()))
        out.set(a.address.toLowerCase(), a.name.replace(/[\r\n]+/g, ' '));
    }
  }
  return out;
}

/**
 * The headers of the message `/v1/send` lets a caller set (send.service.ts `isCustomHeaderAllowed`),
 * as written (folded lines joined, encoded words kept), the first of each name; a header whose
 * value passes the 998-character line limit (RFC 5322 §2.1.1) is left out rather than refusing the mail.
 */
function customHeaders(parsed: ParsedMail): Record<string, string> {
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const { line } of parsed.headerLines) {
    const unfolded = line.replace(/\r?\n(?=[ \t])/g, '');
    const colon = unfolded.indexOf(':');
    if (colon <= 0) continue;
    const name = unfolded.slice(0, colon).trim();
    const value = unfolded.slice(colon + 1).trim();
    const lower = name.toLowerCase();
    if (seen.has(lower) || TRACE_HEADER.test(name) || !isCustomHeaderAllowed(name)) continue;
    if (/[\r\n]/.test(value) || value.length > SEND_LIMITS.headerValue) continue;
    seen.add(lower);
    out[name] = value;
  }
  return out;
}

/**
 * Reads a submitted RFC 5322 message (mailparser) into the request `/v1/send` takes:
 * - recipients: the envelope's RCPT TO addresses (the authoritative list: Bcc is in no header), with
 *   the display names the To/Cc/Bcc headers give them; each becomes its own email and contact;
 * - from: the From header (else the envelope sender), whose domain must be verified; reply: Reply-To;
 * - subject and body: the HTML part, else the text part as HTML; both written so that the template
 *   engine leaves them as they are ({@link literalTemplate});
 * - attachments: every attachment part, inline ones included;
 * - headers: the custom headers `/v1/send` allows (In-Reply-To, References, List-*, X-*…).
 * The request is then checked by the schema of `/v1/send`.
 * @throws AppError 422 VALIDATION_ERROR when the message does not make a valid request.
 */
export async function readSubmission(
  raw: Buffer,
  envelope: { mailFrom: string | null; rcptTo: string[] },
): Promise<Submission> {
  const parsed = await simpleParser(raw, { skipImageLinks: true, skipTextLinks: true });
  const names = namesOf(parsed.to, parsed.cc, parsed.bcc, parsed.from);
  const fromAddress = parsed.from?.value.find((a) => a.address)?.address ?? envelope.mailFrom ?? '';
  const fromName = names.get(fromAddress.toLowerCase());
  const replyTo = parsed.replyTo?.value.find((a) => a.address)?.address;
  const html = parsed.html || parsed.textAsHtml || (parsed.text ? `<p>${escapeHtml(parsed.text)}</p>` : '<p></p>');
  const subject = (parsed.subject ?? '').replace(/[\r\n]+/g, ' ').trim() || '(no subject)';
  const candidate = {
    to: envelope.rcptTo.map((email) => {
      const name = names.get(email.toLowerCase());
      return name ? { name, email } : email;
    }),
    from: fromName ? { name: fromName, email: fromAddress } : fromAddress,
    subject: literalTemplate(subject),
    body: literalTemplate(html),
    headers: customHeaders(parsed),
    ...(replyTo ? { reply: replyTo } : {}),
    attachments: parsed.attachments.map((a, i) => ({
      filename: (a.filename ?? `attachment-${i + 1}`).replace(/[\r\n]+/g, ' ').slice(0, 255),
      content: a.content.toString('base64'),
      contentType:
        MIME_TYPE.test(a.contentType) && a.contentType.length <= 255 ? a.contentType : 'application/octet-stream',
    })),
  };
  const checked = sendBody.safeParse(candidate);
  if (!checked.success) {
    const errors = zodIssuesToFieldErrors(checked.error.issues);
    throw new AppError(
      'VALIDATION_ERROR',
      `Invalid message: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      { errors },
    );
  }
  const id = parsed.messageId?.trim();
  const idempotencyKey = !id ? null : KEY_FORMAT.test(id) ? id : `sha256:${sha256(id)}`;
  return { input: checked.data, idempotencyKey };
}
