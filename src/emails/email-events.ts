import { recordEvent } from '../events/emit.js';
import type { EmailRow } from './emails.repo.js';
import type { SqlRunner } from '../db/tx.js';

/**
 * The `data` of every `email.*` event and event webhook: `{emailId, messageId, subject, templateId?,
 * campaignId?, sourceType}` plus `extra` (e.g. `{bounceType, diagnostic}`, `{link}`, `{error}`).
 */
export function emailEventData(
  row: Pick<EmailRow, 'id' | 'messageId' | 'subject' | 'templateId' | 'campaignId' | 'sourceType'>,
  extra: Record<string, unknown> = {},
) {
  return {
    emailId: row.id,
    messageId: row.messageId,
    subject: row.subject,
    ...(row.templateId ? { templateId: row.templateId } : {}),
    ...(row.campaignId ? { campaignId: row.campaignId } : {}),
    sourceType: row.sourceType,
    ...extra,
  };
}

/** Records the `email.*` event `name` about email `row` (its contact, email and campaign), at `at`. */
export async function recordEmailEvent(
  tx: SqlRunner,
  row: EmailRow,
  name: string,
  at: Date,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await recordEvent(tx, {
    projectId: row.projectId,
    contactId: row.contactId,
    name,
    data: emailEventData(row, extra),
    emailId: row.id,
    campaignId: row.campaignId,
    createdAt: at,
  });
}
