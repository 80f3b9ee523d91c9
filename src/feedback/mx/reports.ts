import { simpleParser, type Attachment, type ParsedMail } from 'mailparser';
import { field, parseFieldGroups, typedAddress, type FieldGroup } from './fields.js';

/**
 * Reading a report that came back to a VERP address: a DSN (RFC 3464 `multipart/report;
 * report-type=delivery-status`), an ARF complaint (RFC 5965 `report-type=feedback-report`), or one of
 * the older free-text bounces some large providers and MTAs still send (qmail, Yahoo, Exchange
 * without a delivery-status part). mailparser splits the MIME; the report fields are read by fields.ts.
 */

/** What a report says about the one mail it is about. */
export type InboundReport =
  | {
      kind: 'bounce';
      /** A 5.x.x status (or a DSN `Action: failed` without status): the address does not take mail. */
      permanent: boolean;
      /** The enhanced status code (RFC 3463), e.g. `5.1.1`, when the report gives one. */
      status?: string;
      /** The remote server's words (`Diagnostic-Code`, or the line of a free-text bounce). */
      diagnostic?: string;
      /** `Final-Recipient` (lower case), when given. */
      recipient?: string;
      /** `Message-ID` of the original mail, from its returned headers. */
      originalMessageId?: string;
      /** `dsn`: a delivery-status part; `text`: read from a free-text bounce. */
      format: 'dsn' | 'text';
      at: Date;
    }
  | { kind: 'complaint'; feedbackType: string; recipient?: string; originalMessageId?: string; at: Date }
  | { kind: 'delivered'; recipient?: string; originalMessageId?: string; at: Date }
  /** Not a report Pigeon acts on (an auto-reply, `not-spam` feedback, …); `reason` is for the log. */
  | { kind: 'ignored'; reason: string };

const DSN_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);
const ORIGINAL_TYPES = new Set([
  'message/rfc822',
  'message/global',
  'text/rfc822-headers',
  'message/rfc822-headers',
  'message/global-headers',
]);
/** ARF feedback types that are a recipient's complaint (RFC 5965 §7.3); `not-spam` and `auth-failure` are not. */
const COMPLAINT_TYPES = new Set(['abuse', 'fraud', 'virus', 'other']);
const BOUNCE_SUBJECT =
  /undeliver|undelivered|delivery (status )?notification|delivery fail|failure notice|returned mail|mail delivery (failed|subsystem|system)|non-?delivery|could not be delivered|delivery (has )?failed|delivery delayed|delayed mail|warning: could not send/i;
const BOUNCE_SENDER = /^(mailer-daemon|postmaster)@/i;

/**
 * Parses one inbound message. `now` bounds the report's time: a `Date` header in the future (or none)
 * gives `now`.
 * @throws Error only when mailparser cannot read the message at all.
 */
export async function parseReport(raw: Buffer, now: Date): Promise<InboundReport> {
  const mail = await simpleParser(raw, {
    keepDeliveryStatus: true,
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipTextLinks: true,
    skipImageLinks: true,
  });
  const at = mail.date && !Number.isNaN(mail.date.getTime()) && mail.date <= now ? mail.date : now;
  const originalMessageId = originalMessageIdOf(mail, raw);
  const arf = mail.attachments.find((a) => a.contentType === 'message/feedback-report');
  if (arf) return complaintOf(text(arf), originalMessageId, at);
  const dsn = mail.attachments.find((a) => DSN_TYPES.has(a.contentType));
  if (dsn) return dsnOf(text(dsn), originalMessageId, at);
  return freeTextBounce(mail, originalMessageId, at);
}

const text = (a: Attachment): string => a.content.toString('utf8');

/**
 * The `Message-ID` of the returned original message: from its part (`message/rfc822`,
 * `text/rfc822-headers`, …) when mailparser gives it as an attachment; mailparser reads an inline
 * `message/rfc822` into the text without its Message-ID, so then from the raw part (RFC 2046 §5.2.1
 * allows such parts no transfer encoding, so the headers are there as sent); else one quoted in the text.
 */
function originalMessageIdOf(mail: ParsedMail, raw: Buffer): string | undefined {
  const part = mail.attachments.find((a) => ORIGINAL_TYPES.has(a.contentType));
  const head = part ? text(part).replace(/\r\n?/g, '\n').split('\n\n')[0] : rawOriginalHeaders(raw);
  const id = head ? field(parseFieldGroups(head)[0], 'message-id') : undefined;
  if (id) return messageIdToken(id);
  const quoted = /^[ \t>]*Message-ID:[ \t]*(<[^>\s]+>)/im.exec(mail.text ?? '');
  return quoted ? quoted[1] : undefined;
}

/** The header block of the first original-message part in the raw MIME (first 1 MB), if any. */
function rawOriginalHeaders(raw: Buffer): string | undefined {
  const mime = raw
    .subarray(0, 1024 * 1024)
    .toString('latin1')
    .replace(/\r\n?/g, '\n');
  const m =
    /^content-type:[ \t]*(?:message\/(?:rfc822|global|rfc822-headers|global-headers)|text\/rfc822-headers)\b.*\n(?:[^\n]+\n)*?\n((?:[^\n]+\n?)+)/im.exec(
      mime,
    );
  return m?.[1];
}

/** The `<…>` of a Message-ID field value (RFC 5322 §3.6.4), comments and spaces dropped. */
function messageIdToken(value: string): string | undefined {
  const m = /<[^>\s]+>/.exec(value);
  return m ? m[0] : undefined;
}

/** An ARF report (RFC 5965 §3.1): one group of fields. */
function complaintOf(part: string, originalMessageId: string | undefined, at: Date): InboundReport {
  const g = parseFieldGroups(part)[0];
  const feedbackType = field(g, 'feedback-type')?.toLowerCase();
  if (!feedbackType) return { kind: 'ignored', reason: 'feedback report without Feedback-Type' };
  if (!COMPLAINT_TYPES.has(feedbackType))
    return { kind: 'ignored', reason: `feedback type ${feedbackType} is not a complaint` };
  return {
    kind: 'complaint',
    feedbackType,
    recipient: typedAddress(field(g, 'original-rcpt-to')),
    originalMessageId,
    at,
  };
}

/** The enhanced status code (RFC 3463) in `value`, e.g. `5.1.1` of `5.1.1 (user unknown)`. */
export function statusCode(value: string | undefined): string | undefined {
  return value ? /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(value)?.[1] : undefined;
}

/**
 * A DSN's delivery-status part (RFC 3464 §2.2, §2.3): the recipient group to act on is the first that
 * failed, else the first delayed, else the first delivered. `Action: failed` with a 5.x.x (or no)
 * status is permanent; `failed` with 4.x.x (e.g. 4.4.7, the queue gave up) and `delayed` are transient;
 * `delivered`, `relayed`, `expanded` are a delivery.
 */
function dsnOf(part: string, originalMessageId: string | undefined, at: Date): InboundReport {
  const recipients = parseFieldGroups(part).filter((g) => g.has('action') || g.has('final-recipient'));
  const action = (g: FieldGroup) => field(g, 'action')?.toLowerCase().split(/[\s(]/)[0];
  const g =
    recipients.find((r) => action(r) === 'failed') ??
    recipients.find((r) => action(r) === 'delayed') ??
    recipients.find((r) => ['delivered', 'relayed', 'expanded'].includes(action(r) ?? ''));
  if (!g) return { kind: 'ignored', reason: 'delivery-status part without a recipient Action' };
  const recipient = typedAddress(field(g, 'final-recipient') ?? field(g, 'original-recipient'));
  const status = statusCode(field(g, 'status'));
  if (action(g) !== 'failed' && action(g) !== 'delayed') return { kind: 'delivered', recipient, originalMessageId, at };
  const permanent = action(g) === 'failed' && (!status || status.startsWith('5.'));
  const diagnostic = field(g, 'diagnostic-code') ?? (status ? `Status: ${status}` : undefined);
  return { kind: 'bounce', permanent, status, diagnostic, recipient, originalMessageId, format: 'dsn', at };
}

/**
 * A bounce without a delivery-status part, read from its text: sent by a mailer daemon or postmaster,
 * or with a bounce's subject (an out-of-office reply is neither; `Auto-Submitted` cannot tell them
 * apart, RFC 3834 marks both `auto-replied`). The
 * first enhanced status code, else the first SMTP reply code (`550 …`, `554-…`), decides; with neither,
 * the words `permanent error`/`permanent failure` make it permanent, and anything else counts as
 * transient (an event only: an address is never suppressed on a guess).
 */
function freeTextBounce(mail: ParsedMail, originalMessageId: string | undefined, at: Date): InboundReport {
  const sender = mail.from?.value[0]?.address ?? '';
  if (!BOUNCE_SENDER.test(sender) && !BOUNCE_SUBJECT.test(mail.subject ?? ''))
    return { kind: 'ignored', reason: 'not a delivery report' };
  const body = mail.text ?? '';
  const lines = body.split(/\r?\n/);
  const enhanced = lines.find((l) => statusCode(l.replace(/\b2\.\d+\.\d+\b/g, '')));
  const reply = enhanced ? undefined : lines.find((l) => /(?:^|[\s:(])[45][0-5]\d[ -](?=[0-9]\.\d|[A-Za-z<#])/.test(l));
  const line = enhanced ?? reply;
  let status: string | undefined;
  let permanent: boolean;
  if (enhanced) {
    status = statusCode(enhanced.replace(/\b2\.\d+\.\d+\b/g, ''))!;
    permanent = status.startsWith('5.');
  } else if (reply) {
    permanent = /(?:^|[\s:(])5[0-5]\d[ -]/.test(reply);
  } else {
    permanent =
      /permanent (error|failure)|permanently/i.test(body) &&
      !/delayed|will (keep|continue) (trying|to try)|temporar/i.test(body);
  }
  const diagnostic = line?.trim().slice(0, 500);
  return { kind: 'bounce', permanent, status, diagnostic, originalMessageId, format: 'text', at };
}
