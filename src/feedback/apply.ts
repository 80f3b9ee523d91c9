import { eq } from 'drizzle-orm';
import { emails } from '../db/schema.js';
import type { Tx } from '../db/tx.js';
import { recordEmailEvent } from '../emails/email-events.js';
import { recordFeedbackStatus } from '../emails/delivery/outcomes.js';
import { complaint, hardBounce, softBounce } from './consequences.js';

/**
 * Delivery feedback applied to an email, whichever channel reported it: Amazon SES notifications
 * through SNS (sns.service.ts) or bounce (DSN, RFC 3464) and complaint (ARF, RFC 5965) reports
 * received by mail. Each function runs in the caller's transaction; the status change itself is
 * outcomes.ts `recordFeedbackStatus` (its ordering rule: delivery only moves up the order; a permanent
 * bounce or a complaint ends any email not yet final, OPENED and CLICKED included; a final status never
 * changes). Each records its `email.*` event once per email and outcome: the same bounce or complaint
 * reported twice (a replay, or by two channels) records and suppresses once. What a bounce or a
 * complaint costs the address and the contact is consequences.ts.
 */

/** A bounce report. `diagnostic`: the remote server's words (e.g. `smtp; 550 5.1.1 user unknown`). */
export interface Bounce {
  /** A hard bounce (SES `Permanent`, DSN `Action: failed` with a 5.x.x status); false: soft (SES `Transient`/`Undetermined`, DSN 4.x.x). */
  permanent: boolean;
  diagnostic?: string;
  /** When the bounce happened (the report's time). */
  at: Date;
}

/**
 * A bounce of email `emailId`. Permanent: BOUNCED (unless final), `email.bounce` with `bounceType:
 * 'Permanent'`, the address suppressed (`bounce`) and the contact unsubscribed
 * (`contact.unsubscribed`). Transient: `email.bounce` with `bounceType: 'Transient'` only, no status
 * change (the receiving server still tries, or the mailbox is full).
 * @returns false when no such email exists.
 */
export async function applyBounce(tx: Tx, emailId: string, b: Bounce): Promise<boolean> {
  if (!b.permanent) {
    const [row] = await tx.select().from(emails).where(eq(emails.id, emailId));
    if (!row) return false;
    await softBounce(tx, row, b.at, b.diagnostic);
    return true;
  }
  const change = await recordFeedbackStatus(tx, emailId, 'BOUNCED', b.at, b.diagnostic);
  if (!change) return false;
  if (!change.first) return true;
  await hardBounce(tx, change.row, b.at, b.diagnostic);
  return true;
}

/** A complaint report (the recipient marked the mail as spam). */
export interface Complaint {
  /** The feedback type (ARF `Feedback-Type`, SES `complaintFeedbackType`: `abuse`, `fraud`, …), when reported. */
  feedbackType?: string;
  at: Date;
}

/**
 * A complaint about email `emailId`: COMPLAINED (even after OPENED or CLICKED: the complaint is the
 * recipient's later word; a BOUNCED, FAILED or SUPPRESSED email keeps its status), `email.complaint`
 * (with `feedbackType` when known), the address suppressed (`complaint`) and the contact unsubscribed.
 * @returns false when no such email exists.
 */
export async function applyComplaint(tx: Tx, emailId: string, c: Complaint): Promise<boolean> {
  const change = await recordFeedbackStatus(tx, emailId, 'COMPLAINED', c.at);
  if (!change) return false;
  if (!change.first) return true;
  await complaint(tx, change.row, c.at, c.feedbackType);
  return true;
}

/**
 * The receiving server accepted email `emailId` (SES `Delivery`, DSN `Action: delivered`): DELIVERED
 * when it was lower in the order, and `email.delivery` the first time delivery is reported (an email
 * an SMTP relay accepted was DELIVERED, with its event, when it was sent).
 * @returns false when no such email exists.
 */
export async function applyDelivery(tx: Tx, emailId: string, at: Date): Promise<boolean> {
  const change = await recordFeedbackStatus(tx, emailId, 'DELIVERED', at);
  if (!change) return false;
  if (change.first) await recordEmailEvent(tx, change.row, 'email.delivery', at);
  return true;
}
