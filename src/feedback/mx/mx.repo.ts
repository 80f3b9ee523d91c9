import { eq } from 'drizzle-orm';
import { emails } from '../../db/schema.js';
import type { Tx } from '../../db/tx.js';

/**
 * SQL of inbound reports. A report arrives from the internet, not from a project: the email is found by
 * the id its VERP token names (signed, so only Pigeon could have made it), across projects.
 */

/** The email a verified VERP token names: id, project, recipient and the Message-ID it was sent with. */
export async function findTokenEmail(tx: Tx, emailId: string) {
  const [row] = await tx
    .select({ id: emails.id, projectId: emails.projectId, toEmail: emails.toEmail, messageId: emails.messageId })
    .from(emails)
    .where(eq(emails.id, emailId))
    .limit(1);
  return row;
}

/** The id of the email sent with Message-ID `messageId` (`emails_message_id_idx`), if it is one of Pigeon's. */
export async function findEmailByMessageId(tx: Tx, messageId: string): Promise<string | undefined> {
  const [row] = await tx.select({ id: emails.id }).from(emails).where(eq(emails.messageId, messageId)).limit(1);
  return row?.id;
}
