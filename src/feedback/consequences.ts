import { setSubscription } from '../contacts/subscription.js';
import { recordEmailEvent } from '../emails/email-events.js';
import type { EmailRow } from '../emails/emails.repo.js';
import * as suppressions from '../suppressions/suppressions.repo.js';
import type { SqlRunner } from '../db/tx.js';

/**
 * What delivery feedback does besides moving the email's status (emails/delivery/outcomes.ts): the
 * one place that says what a hard bounce, a soft bounce and a complaint cost the address and the
 * contact, whichever channel reported it — the SMTP server's 5xx during delivery, a DSN (RFC 3464) or
 * ARF report (RFC 5965) received by mail, or an Amazon SES notification through SNS. Each runs in the
 * caller's transaction, once per email and outcome (the callers check that the outcome is new).
 *
 * - Hard bounce (a permanent failure: SMTP 5xx, DSN `Action: failed` with a 5.x.x status, SES
 *   `Permanent`): `email.bounce` with `bounceType: 'Permanent'`, the address suppressed with reason
 *   `bounce`, the contact unsubscribed (contacts/subscription.ts).
 * - Soft bounce (DSN 4.x.x, SES `Transient`/`Undetermined`): `email.bounce` with `bounceType:
 *   'Transient'` only; the receiving server still tries, or the mailbox is full.
 * - Complaint (the recipient marked the mail as spam): `email.complaint` (with `feedbackType` when
 *   known), the address suppressed with reason `complaint`, the contact unsubscribed.
 * The unsubscription's event is caused by the email, so a workflow that sent it sees it one
 * causation level deeper (workflows/causation.ts).
 */

/** The event's `diagnostic`: the remote server's words, at most 1,000 characters. */
const diagnosticOf = (d?: string) => (d ? { diagnostic: d.slice(0, 1000) } : {});

/** A hard bounce of email `row` at `at`; `diagnostic`: e.g. `smtp; 550 5.1.1 user unknown`. */
export async function hardBounce(tx: SqlRunner, row: EmailRow, at: Date, diagnostic?: string): Promise<void> {
  await recordEmailEvent(tx, row, 'email.bounce', at, { bounceType: 'Permanent', ...diagnosticOf(diagnostic) });
  await loseAddress(tx, row, 'bounce', at);
}

/** A soft bounce of email `row` at `at`. */
export async function softBounce(tx: SqlRunner, row: EmailRow, at: Date, diagnostic?: string): Promise<void> {
  await recordEmailEvent(tx, row, 'email.bounce', at, { bounceType: 'Transient', ...diagnosticOf(diagnostic) });
}

/** A complaint about email `row` at `at`; `feedbackType`: ARF `Feedback-Type` or SES `complaintFeedbackType` (`abuse`, `fraud`, …). */
export async function complaint(tx: SqlRunner, row: EmailRow, at: Date, feedbackType?: string): Promise<void> {
  await recordEmailEvent(tx, row, 'email.complaint', at, feedbackType ? { feedbackType } : {});
  await loseAddress(tx, row, 'complaint', at);
}

async function loseAddress(tx: SqlRunner, row: EmailRow, reason: 'bounce' | 'complaint', at: Date): Promise<void> {
  await suppressions.add(tx, row.projectId, row.toEmail, reason, at);
  if (row.contactId)
    await setSubscription(tx, row.projectId, [row.contactId], false, at, {
      origin: { source: reason },
      causedByEmailId: row.id,
    });
}
