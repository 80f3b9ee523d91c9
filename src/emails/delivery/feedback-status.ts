import { eq } from 'drizzle-orm';
import { emails } from '../../db/schema.js';
import type { Tx } from '../../db/tx.js';
import type { EmailRow } from '../emails.repo.js';

/**
 * The email status delivery feedback moves to, part of the module of email status changes
 * (outcomes.ts, which re-exports this).
 */

/** What delivery feedback (an SES notification, or a DSN/ARF report) says happened to an email. */
export type FeedbackOutcome = 'DELIVERED' | 'BOUNCED' | 'COMPLAINED';

const FEEDBACK_FROM: Record<FeedbackOutcome, ReadonlyArray<EmailRow['status']>> = {
  DELIVERED: ['PENDING', 'SENDING', 'SENT'],
  BOUNCED: ['PENDING', 'SENDING', 'SENT', 'DELIVERED', 'OPENED', 'CLICKED'],
  COMPLAINED: ['PENDING', 'SENDING', 'SENT', 'DELIVERED', 'OPENED', 'CLICKED'],
};
const FEEDBACK_STAMP = { DELIVERED: 'deliveredAt', BOUNCED: 'bouncedAt', COMPLAINED: 'complainedAt' } as const;

/**
 * The status an email moves to on `outcome` feedback, or null when it stays. The ordering rule:
 * - DELIVERED moves only up the order (from PENDING, SENDING or SENT); an email already DELIVERED,
 *   OPENED or CLICKED, or in a final state, keeps its status.
 * - BOUNCED (a permanent bounce) and COMPLAINED end the email from any non-final status, OPENED and
 *   CLICKED included: a complaint is always the recipient's later word on a mail they read, and a
 *   bounce outweighs an open (image proxies and link scanners "open" mail before a gateway refuses it).
 * - A final status (BOUNCED, COMPLAINED, FAILED, SUPPRESSED) never changes: a complaint about a mail
 *   that bounced stays BOUNCED (its suppression and unsubscription still apply, feedback/apply.ts).
 * PENDING and SENDING are included because feedback can overtake the write of the send's own outcome
 * (or a retry of a mail SES already took): moving the row on keeps a retry from sending it again.
 */
export function statusAfterFeedback(current: EmailRow['status'], outcome: FeedbackOutcome): EmailRow['status'] | null {
  return FEEDBACK_FROM[outcome].includes(current) ? outcome : null;
}

/** What {@link recordFeedbackStatus} did to the email. */
export interface FeedbackStatusChange {
  /** The row after the change. */
  row: EmailRow;
  /** Its status before. */
  was: EmailRow['status'];
  /** The status moved ({@link statusAfterFeedback}). */
  moved: boolean;
  /** No feedback of this outcome was recorded on the email before (its `delivered_at`, `bounced_at` or `complained_at` was empty). */
  first: boolean;
}

/**
 * Applies delivery feedback to the status of email `emailId`, under its row lock: the status moves as
 * {@link statusAfterFeedback} says, the outcome's timestamp (`delivered_at`, `bounced_at`,
 * `complained_at`) is set the first time, and a bounce that moves the status stores `diagnostic` as
 * the email's error. Events, suppression and unsubscription are the caller's (feedback/apply.ts).
 * @returns null when no such email exists.
 */
export async function recordFeedbackStatus(
  tx: Tx,
  emailId: string,
  outcome: FeedbackOutcome,
  at: Date,
  diagnostic?: string,
): Promise<FeedbackStatusChange | null> {
  const [prev] = await tx.select().from(emails).where(eq(emails.id, emailId)).for('update');
  if (!prev) return null;
  const stamp = FEEDBACK_STAMP[outcome];
  const first = prev[stamp] == null;
  const to = statusAfterFeedback(prev.status, outcome);
  if (!to && !first) return { row: prev, was: prev.status, moved: false, first };
  const [row] = await tx
    .update(emails)
    .set({
      ...(to ? { status: to, claimToken: null } : {}),
      ...(first ? { [stamp]: at } : {}),
      ...(to && diagnostic ? { error: diagnostic.slice(0, 2000) } : {}),
      updatedAt: at,
    })
    .where(eq(emails.id, emailId))
    .returning();
  return { row, was: prev.status, moved: !!to, first };
}
