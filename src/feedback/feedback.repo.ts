import { eq, lt } from 'drizzle-orm';
import { emails, snsNotifications } from '../db/schema.js';
import type { Tx } from '../db/tx.js';

/**
 * SQL of delivery feedback. Feedback arrives from the sending provider, not from a project, so the
 * look-ups below are by the message's own ids across projects (the ids are unique and unguessable).
 */

/**
 * Records an SNS notification id as processed, in the transaction that applies it.
 * @returns false when it was processed before (a replay): the caller changes nothing.
 */
export async function markNotificationProcessed(tx: Tx, messageId: string, at: Date): Promise<boolean> {
  const r = await tx
    .insert(snsNotifications)
    .values({ id: messageId, processedAt: at })
    .onConflictDoNothing()
    .returning({ id: snsNotifications.id });
  return r.length > 0;
}

/**
 * Deletes the replay-guard rows of notifications processed before `before` (see
 * sns.verify.ts `SNS_MAX_AGE_MS`: older notifications are refused anyway). @returns how many.
 */
export async function purgeSnsNotifications(db: Tx, before: Date): Promise<number> {
  const r = await db.delete(snsNotifications).where(lt(snsNotifications.processedAt, before));
  return r.rowCount ?? 0;
}

/**
 * The email a provider's feedback is about: only by the provider's message id stored when the mail was
 * handed to that provider (`provider_message_id`, written by the SES transport). Never by the
 * `Message-ID` header: every recipient sees it, so feedback naming it could be about any mail of theirs.
 * @returns its id, or undefined when the mail was not sent through the provider with that id.
 */
export async function findEmailForFeedback(tx: Tx, providerMessageId: string): Promise<string | undefined> {
  const [row] = await tx
    .select({ id: emails.id })
    .from(emails)
    .where(eq(emails.providerMessageId, providerMessageId))
    .limit(1);
  return row?.id;
}
