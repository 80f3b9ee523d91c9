/**
 * Amazon SES feedback as it arrives in an SNS notification's `Message`: the JSON of an event
 * published by a configuration set (`eventType`) or of an identity notification
 * (`notificationType`), both with `mail.messageId` (the id `SendEmail` answered).
 */

/** What an SES event reports, in the terms of feedback/apply.ts. */
export type SesFeedback =
  | { kind: 'bounce'; permanent: boolean; diagnostic?: string; at: Date }
  | { kind: 'complaint'; feedbackType?: string; at: Date }
  | { kind: 'delivery'; at: Date };

/** One SES event: the message it is about, and what happened. */
export interface SesEvent {
  /** SES's `MessageId` of the message (`mail.messageId`). */
  sesMessageId: string;
  feedback: SesFeedback;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** `ts` as a date when it is a valid timestamp, else `fallback`. */
function timeOf(ts: unknown, fallback: Date): Date {
  const t = typeof ts === 'string' ? Date.parse(ts) : NaN;
  return Number.isNaN(t) ? fallback : new Date(t);
}

/**
 * Reads an SES event. `Bounce` with `bounceType` `Permanent` is a hard bounce; `Transient` and
 * `Undetermined` are soft; the diagnostic is the first bounced recipient's `diagnosticCode`, else the
 * bounce's type and subtype. `Complaint` carries `complaintFeedbackType` when the mailbox provider
 * sent one. Other event types (Send, Reject, Open, Click, DeliveryDelay, …) and anything that is not
 * an SES event give null: Pigeon counts opens and clicks itself.
 * @param now the time used when the event has no valid timestamp.
 */
export function parseSesEvent(message: string, now: Date): SesEvent | null {
  let doc: Json;
  try {
    doc = obj(JSON.parse(message));
  } catch {
    return null;
  }
  const type = str(doc.eventType) ?? str(doc.notificationType);
  const mail = obj(doc.mail);
  const sesMessageId = str(mail.messageId);
  if (!type || !sesMessageId) return null;
  let feedback: SesFeedback;
  if (type === 'Bounce') {
    const b = obj(doc.bounce);
    const first = obj(Array.isArray(b.bouncedRecipients) ? b.bouncedRecipients[0] : undefined);
    const diagnostic = str(first.diagnosticCode) ?? [str(b.bounceType), str(b.bounceSubType)].filter(Boolean).join('/');
    feedback = {
      kind: 'bounce',
      permanent: b.bounceType === 'Permanent',
      ...(diagnostic ? { diagnostic } : {}),
      at: timeOf(b.timestamp, now),
    };
  } else if (type === 'Complaint') {
    const c = obj(doc.complaint);
    const feedbackType = str(c.complaintFeedbackType);
    feedback = { kind: 'complaint', ...(feedbackType ? { feedbackType } : {}), at: timeOf(c.timestamp, now) };
  } else if (type === 'Delivery') {
    feedback = { kind: 'delivery', at: timeOf(obj(doc.delivery).timestamp, now) };
  } else {
    return null;
  }
  return { sesMessageId, feedback };
}
