import type { Deps } from '../../deps.js';
import type { Tx } from '../../db/tx.js';
import { applyBounce, applyComplaint, applyDelivery } from '../apply.js';
import { findEmailByMessageId, findTokenEmail } from './mx.repo.js';
import { parseReport, type InboundReport } from './reports.js';

/** What one inbound message did. */
export type InboundOutcome =
  /** A bounce, complaint or delivery report applied to the email its VERP address names. */
  | 'processed'
  /** Read, but nothing to do (an auto-reply, `not-spam` feedback, a mail that no longer exists). */
  | 'ignored'
  /** The report names, by its original Message-ID, another of Pigeon's mails than its VERP address does. */
  | 'mismatched'
  /** mailparser could not read it. */
  | 'unparseable';

/**
 * Handles one message received at the VERP addresses naming `emailIds` (verified tokens, verp.ts):
 * parses it (reports.ts) and, in one transaction, applies it to each email (feedback/apply.ts):
 * a permanent bounce → BOUNCED, suppression, contact unsubscribed; a transient bounce → `email.bounce`
 * event only; an ARF complaint → COMPLAINED, suppression, contact unsubscribed; a DSN `delivered` →
 * DELIVERED when lower. The VERP token decides which email; the report's original Message-ID, when it
 * is another Pigeon mail's, marks the report as inconsistent and nothing changes (a report cannot
 * reach another mail, or another project's, through an address it was given). An unknown Message-ID
 * is no objection: relays may rewrite it.
 * @throws the database's errors (the SMTP server answers 451 and the sender tries again later).
 */
export async function handleInboundMessage(deps: Deps, emailIds: string[], raw: Buffer): Promise<InboundOutcome> {
  const now = deps.clock.now();
  let report: InboundReport;
  try {
    report = await parseReport(raw, now);
  } catch (err) {
    deps.log.warn({ err: (err as Error).message, emailIds }, 'inbound report not readable');
    return 'unparseable';
  }
  if (report.kind === 'ignored') {
    deps.log.info({ emailIds, reason: report.reason }, 'inbound message ignored');
    return 'ignored';
  }
  const r = report;
  return deps.db.transaction(async (tx) => {
    let outcome: InboundOutcome = 'ignored';
    for (const emailId of new Set(emailIds)) {
      const row = await findTokenEmail(tx, emailId);
      if (!row) {
        deps.log.info({ emailId, kind: r.kind }, 'inbound report for an email that no longer exists');
        continue;
      }
      if (
        r.originalMessageId &&
        r.originalMessageId !== row.messageId &&
        (await findEmailByMessageId(tx, r.originalMessageId))
      ) {
        deps.log.warn(
          { emailId, originalMessageId: r.originalMessageId },
          'inbound report names another mail than its VERP address: ignored',
        );
        outcome = outcome === 'processed' ? outcome : 'mismatched';
        continue;
      }
      await apply(tx, emailId, r);
      deps.log.info(
        {
          emailId,
          projectId: row.projectId,
          kind: r.kind,
          ...(r.kind === 'bounce' ? { permanent: r.permanent, status: r.status, format: r.format } : {}),
        },
        'inbound report applied',
      );
      outcome = 'processed';
    }
    return outcome;
  });
}

async function apply(tx: Tx, emailId: string, r: Exclude<InboundReport, { kind: 'ignored' }>): Promise<void> {
  if (r.kind === 'bounce')
    await applyBounce(tx, emailId, { permanent: r.permanent, diagnostic: r.diagnostic, at: r.at });
  else if (r.kind === 'complaint') await applyComplaint(tx, emailId, { feedbackType: r.feedbackType, at: r.at });
  else await applyDelivery(tx, emailId, r.at);
}
