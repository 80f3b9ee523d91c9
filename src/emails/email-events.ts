import { recordEvent } from '../events/emit.js';
import type { EmailRow } from './emails.repo.js';
import type { SqlRunner } from '../db/tx.js';

/**
 * The `data` of every `email.*` event and event webhook: `{emailId, messageId, to, subject, templateId?,
 * campaignId?, workflowExecutionId?, sourceType}` plus `extra` (e.g. `{bounceType, diagnostic}`, `{link}`,
 * `{error}`). `to` (the recipient's address) and the source (`sourceType` with the campaign, template or
 * workflow execution id) let a webhook consumer act on an event without looking the email up. The
 * set-based writer of `email.sent` / `email.delivery` (delivery/outcomes.ts `markSentMany`) builds the
 * same object in SQL: keep the two alike (email-events.test.ts compares them).
 */
export function emailEventData(
  row: Pick<
    EmailRow,
    'id' | 'messageId' | 'toEmail' | 'subject' | 'templateId' | 'campaignId' | 'workflowExecutionId' | 'sourceType'
  >,
  extra: Record<string, unknown> = {},
) {
  return {
    emailId: row.id,
    messageId: row.messageId,
    to: row.toEmail,
    subject: row.subject,
    ...(row.templateId ? { templateId: row.templateId } : {}),
    ...(row.campaignId ? { campaignId: row.campaignId } : {}),
    ...(row.workflowExecutionId ? { workflowExecutionId: row.workflowExecutionId } : {}),
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
