import { randomUUID } from 'node:crypto';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { Deps } from '../deps.js';
import { domainOf } from '../domains/verified.js';
import * as repo from './emails.repo.js';
import { claimForDelivery, markBounced, markFailed, markHandOff, markRetry, markSent, type Claim, type ClaimedEmail } from './outcomes.js';
import { MessageRenderError, renderEmail, type RenderedMessage, type TrackingMode } from './render.js';

/**
 * The `emails:send` job: claim the row, render, build the MIME with nodemailer, DKIM-sign it with the
 * sender domain's key and hand it to `deps.transport`.
 *
 * Exactly once, and on the safe side where it cannot be exact. The row is claimed with a fresh claim
 * token (outcomes.ts `claimForDelivery`); a row left SENDING by a run that died is claimed again and
 * sent again. Just before the final "." of SMTP DATA the hand-off mark (`message_id`) is written,
 * conditional on the token, and the dot follows as soon as it commits: if another run took the row over
 * meanwhile, the mark finds nothing and the dot is never written, so two live runs never both deliver.
 * What remains is the window RFC 1047 describes, from the dot to the server's reply and our record of
 * it: a kill inside it makes the next run send the mail again, with the same Message-ID
 * (`<emailId@domain>`) so receivers can tell the copies apart; a kill anywhere else loses nothing. A
 * possible duplicate beats a lost mail: nothing is ever left FAILED without having been tried.
 *
 * Outcomes (SMTP outcome rules): accepted → SENT (+ DELIVERED when an SMTP server took it); 5xx on RCPT
 * or DATA → BOUNCED (hard bounce); anything else (4xx, connection fault) → back to PENDING and the job
 * throws, so Graphile Worker retries it with exponential backoff; on the last attempt → FAILED.
 */
export interface Attempt {
  /** This run's attempt number, 1-based (Graphile's `job.attempts`). */
  attempt: number;
  maxAttempts: number;
}

/** Thrown to make Graphile Worker retry a temporary failure. */
export class RetryableDeliveryError extends Error {}

/** Runs one attempt of the `emails:send` job for `emailId` (see above). @throws RetryableDeliveryError to be retried. */
export async function deliverEmail(deps: Deps, emailId: string, attempt: Attempt): Promise<void> {
  const now = () => deps.clock.now();
  const claimed = await claimForDelivery(deps.db, emailId, randomUUID(), now());
  if (claimed.kind === 'suppressed') deps.metrics.emailTransitions.inc({ to: 'SUPPRESSED' });
  if (claimed.kind !== 'claimed') return;
  const { claim } = claimed;
  if (claimed.handedOff) {
    deps.log.warn({ emailId }, 'sending again an email whose previous run died after the hand-off mark: the recipient may get it twice, with the same Message-ID');
  }
  let prepared: Prepared | string;
  try {
    prepared = await prepare(deps, claimed.data);
  } catch (err) {
    // Nothing left yet: a database or rendering fault is retried like a transport fault.
    return retryOrFail(deps, claim, attempt, (err as Error)?.message ?? String(err));
  }
  if (typeof prepared === 'string') {
    deps.metrics.emailTransitions.inc({ to: 'FAILED' });
    return markFailed(deps.db, claim, prepared, now());
  }
  const { message, messageId, subject } = prepared;

  // The mark goes out on a connection of its own (the pool's others may all be busy with outcomes),
  // and the dot follows the moment it commits.
  const markClient = await deps.pool.connect();
  let lost = false;
  let result;
  const timer = deps.metrics.smtpDuration.startTimer();
  try {
    result = await deps.transport.send(message, {
      beforeHandOff: async () => {
        if (!(await markHandOff(markClient, claim, messageId))) {
          lost = true;
          throw new Error(`email ${emailId} was taken over by another delivery run; not finishing DATA`);
        }
      },
    });
  } catch (err) {
    if (lost) {
      deps.log.warn({ emailId }, 'delivery run lost its claim before the hand-off; the run that took over sends it');
      return;
    }
    const e = err as { responseCode?: number; command?: string; response?: string; message?: string };
    const diagnostic = (e.response ?? e.message ?? String(err)).slice(0, 1000);
    if (e.responseCode && e.responseCode >= 500 && (e.command === 'RCPT TO' || e.command === 'DATA')) {
      timer({ outcome: 'bounced' });
      deps.metrics.emailTransitions.inc({ to: 'BOUNCED' });
      await deps.db.transaction((tx) => markBounced(tx, claim, messageId, diagnostic, now()));
      return;
    }
    timer({ outcome: attempt.attempt >= attempt.maxAttempts ? 'failed' : 'deferred' });
    return retryOrFail(deps, claim, attempt, diagnostic);
  } finally {
    markClient.release();
  }
  timer({ outcome: 'delivered' });
  deps.metrics.emailTransitions.inc({ to: result.delivered ? 'DELIVERED' : 'SENT' });
  await markSent(deps.db, claim, messageId, subject, result.delivered, now(), claimed.data.email.projectId);
}

/** A temporary failure: FAILED after the last attempt, else back to PENDING and throw for a retry. */
async function retryOrFail(deps: Deps, claim: Claim, attempt: Attempt, diagnostic: string): Promise<void> {
  if (attempt.attempt >= attempt.maxAttempts) {
    deps.metrics.emailTransitions.inc({ to: 'FAILED' });
    return markFailed(deps.db, claim, `Gave up after ${attempt.attempt} attempts: ${diagnostic}`, deps.clock.now());
  }
  deps.metrics.emailTransitions.inc({ to: 'PENDING' });
  await markRetry(deps.db, claim, diagnostic, deps.clock.now());
  throw new RetryableDeliveryError(`Delivery of email ${claim.emailId} failed temporarily (attempt ${attempt.attempt}): ${diagnostic}`);
}

interface Prepared {
  message: Mail.Options;
  messageId: string;
  /** The rendered subject, stored on the row once sent. */
  subject: string;
}

/**
 * Builds the message from what the claim read: rendered body, headers, attachments (the shared
 * content, read once per process), DKIM key.
 * @returns the message, or a reason to fail it for good (contact deleted, sender domain unverified,
 *   a template that does not render).
 */
async function prepare(deps: Deps, claimed: ClaimedEmail): Promise<Prepared | string> {
  const now = () => deps.clock.now();
  const { email: row, contact, domain } = claimed;
  if (!contact) return 'The contact was deleted before the email was sent';
  if (!domain) return `The sender domain ${domainOf(row.fromEmail)} is no longer verified`;
  const content = await repo.getContent(deps.db, row);

  let rendered: RenderedMessage;
  try {
    rendered = await renderEmail({
      emailId: row.id, subject: row.subject, body: content.body, type: row.type,
      tracking: claimed.tracking as TrackingMode,
      contactData: contact.data, variables: row.variables, contact: { id: contact.id, email: contact.email },
      publicUrl: deps.config.PUBLIC_URL, secret: deps.secret,
    });
  } catch (err) {
    // The same template and data fail the same way on every attempt: fail now instead of retrying.
    if (err instanceof MessageRenderError) return `Rendering failed: ${err.message}`;
    throw err;
  }
  const headers: Record<string, string> = { ...row.headers };
  if (row.type === 'MARKETING' || row.campaignId) {
    // RFC 8058 one-click unsubscribe and RFC 2076 bulk precedence on marketing mail.
    for (const k of Object.keys(headers)) {
      if (/^(list-unsubscribe(-post)?|precedence)$/i.test(k)) delete headers[k];
    }
    const mailto = `mailto:${row.replyTo ?? row.fromEmail}?subject=unsubscribe`;
    headers['List-Unsubscribe'] = `<${rendered.urls.unsubscribeUrl}>, <${mailto}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
    headers['Precedence'] = 'bulk';
  }
  const messageId = `<${row.id}@${domainOf(row.fromEmail)}>`;
  const { attachments } = content;
  const message: Mail.Options = {
    from: { name: row.fromName ?? '', address: row.fromEmail },
    to: { name: row.toName ?? '', address: row.toEmail },
    ...(row.replyTo ? { replyTo: row.replyTo } : {}),
    subject: rendered.subject,
    html: rendered.html,
    text: rendered.text,
    messageId,
    date: now(),
    headers,
    attachments: attachments.map((a) => ({ filename: a.filename, content: a.content, ...(a.contentType ? { contentType: a.contentType } : {}) })),
    dkim: { domainName: domain.domain, keySelector: domain.dkimSelector, privateKey: domain.dkimPrivateKey },
  };
  return { message, messageId, subject: rendered.subject };
}

