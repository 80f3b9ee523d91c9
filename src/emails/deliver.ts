import { eq, sql } from 'drizzle-orm';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { contacts } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { domainOf, findVerifiedDomain } from '../domains/verified.js';
import * as repo from './emails.repo.js';
import { markBounced, markFailed, markRetry, markSent } from './outcomes.js';
import { renderMessage, type TrackingMode } from './render.js';

/**
 * The `emails:send` job (DESIGN.md: sending): take the row, render, build the MIME with nodemailer,
 * DKIM-sign it with the sender domain's key and hand it to `deps.transport`.
 *
 * Exactly once: the row is taken with `UPDATE … SET status='SENDING' WHERE status='PENDING'`, so a
 * second run of the job finds nothing to do. `message_id` is written just before the final "." of
 * SMTP DATA (the transport's hand-off hook): a SENDING row without it was certainly not delivered by
 * a run that died, and is taken again; one with it may have been delivered, so it is marked FAILED
 * rather than sent a second time (at most once beats a duplicate).
 *
 * Outcomes (decisions.md: SMTP outcome): accepted → SENT (+ DELIVERED for SMTP); 5xx on RCPT or DATA
 * → BOUNCED; anything else (4xx, connection fault) → back to PENDING and the job throws, so Graphile
 * Worker retries it with exponential backoff; on the last attempt → FAILED.
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
  let claimed = await deps.db.execute<{ id: string }>(sql`
    update emails set status = 'SENDING', attempts = attempts + 1, message_id = null, updated_at = ${now().toISOString()}::timestamptz
    where id = ${emailId} and status = 'PENDING' returning id`);
  if (!claimed.rows.length) {
    // A run that died (worker killed) before the hand-off mark below never completed DATA, so the
    // message was not delivered: take the row again. Graphile runs one job at a time, so no live run
    // holds it. (Added for campaign crash safety; see the hand-off mark.)
    claimed = await deps.db.execute<{ id: string }>(sql`
      update emails set attempts = attempts + 1, updated_at = ${now().toISOString()}::timestamptz
      where id = ${emailId} and status = 'SENDING' and message_id is null returning id`);
  }
  if (!claimed.rows.length) {
    const row = await repo.getEmail(deps.db, emailId);
    if (row?.status === 'SENDING') {
      await markFailed(deps.db, emailId, 'Delivery was interrupted during the hand-off; not retried to avoid a duplicate', now());
    }
    return;
  }
  let prepared: Prepared | string;
  try {
    prepared = await prepare(deps, emailId);
  } catch (err) {
    // Nothing left yet: a database or rendering fault is retried like a transport fault.
    return retryOrFail(deps, emailId, attempt, (err as Error)?.message ?? String(err));
  }
  if (typeof prepared === 'string') return markFailed(deps.db, emailId, prepared, now());
  const { message, messageId, subject } = prepared;

  // The hand-off mark: message_id is stored as the final "." of DATA leaves (SendHooks), so a SENDING
  // row without it was certainly not delivered, and one with it possibly was (RFC 1047). The mark goes
  // out on a connection of its own, so its statement is written in the same tick as the dot and
  // PostgreSQL runs it even if this process dies right after (it finishes a dead client's statement).
  const markClient = await deps.pool.connect();
  let mark: Promise<unknown> | undefined;
  const settleMark = async () => {
    await mark?.catch(() => undefined); // a failed mark is covered by markSent, which stores message_id too
    markClient.release();
  };
  try {
    await deps.transport.send(message, {
      beforeHandOff: () => {
        mark = markClient.query(`update emails set message_id = $1 where id = $2 and status = 'SENDING'`, [messageId, emailId]);
        return mark.then(() => undefined);
      },
    });
    await settleMark();
  } catch (err) {
    await settleMark();
    const e = err as { responseCode?: number; command?: string; response?: string; message?: string };
    const diagnostic = (e.response ?? e.message ?? String(err)).slice(0, 1000);
    if (e.responseCode && e.responseCode >= 500 && (e.command === 'RCPT TO' || e.command === 'DATA')) {
      await deps.db.transaction((tx) => markBounced(tx, emailId, messageId, diagnostic, now()));
      return;
    }
    return retryOrFail(deps, emailId, attempt, diagnostic);
  }
  await deps.db.transaction((tx) => markSent(tx, emailId, messageId, subject, deps.transport.kind === 'smtp', now()));
}

/** A temporary failure: FAILED after the last attempt, else back to PENDING and throw for a retry. */
async function retryOrFail(deps: Deps, emailId: string, attempt: Attempt, diagnostic: string): Promise<void> {
  if (attempt.attempt >= attempt.maxAttempts) {
    return markFailed(deps.db, emailId, `Gave up after ${attempt.attempt} attempts: ${diagnostic}`, deps.clock.now());
  }
  await markRetry(deps.db, emailId, diagnostic, deps.clock.now());
  throw new RetryableDeliveryError(`Delivery of email ${emailId} failed temporarily (attempt ${attempt.attempt}): ${diagnostic}`);
}

interface Prepared {
  message: Mail.Options;
  messageId: string;
  /** The rendered subject, stored on the row once sent. */
  subject: string;
}

/**
 * Loads what the message needs and builds it: rendered body, headers, attachments, DKIM key.
 * @returns the message, or a reason to fail it for good (contact deleted, sender domain unverified).
 */
async function prepare(deps: Deps, emailId: string): Promise<Prepared | string> {
  const now = () => deps.clock.now();
  const row = (await repo.getEmail(deps.db, emailId))!;

  const [contact] = row.contactId
    ? await deps.db.select().from(contacts).where(eq(contacts.id, row.contactId)).limit(1)
    : [];
  if (!contact) return 'The contact was deleted before the email was sent';
  const domain = await findVerifiedDomain(deps.db, row.projectId, row.fromEmail);
  if (!domain) return `The sender domain ${domainOf(row.fromEmail)} is no longer verified`;
  const settings = await repo.getProjectSettings(deps.db, row.projectId);

  const rendered = renderMessage({
    emailId: row.id, subject: row.subject, body: row.body, type: row.type,
    tracking: (settings?.tracking ?? 'ENABLED') as TrackingMode,
    contactData: contact.data, variables: row.variables, contact: { id: contact.id, email: contact.email },
    publicUrl: deps.config.PUBLIC_URL, secret: deps.secret,
  });
  const headers: Record<string, string> = { ...row.headers };
  if (row.type === 'MARKETING' || row.campaignId) {
    // RFC 8058 one-click unsubscribe and RFC 2076 bulk precedence (decisions.md: marketing mail).
    for (const k of Object.keys(headers)) {
      if (/^(list-unsubscribe(-post)?|precedence)$/i.test(k)) delete headers[k];
    }
    const mailto = `mailto:${row.replyTo ?? row.fromEmail}?subject=unsubscribe`;
    headers['List-Unsubscribe'] = `<${rendered.urls.unsubscribeUrl}>, <${mailto}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
    headers['Precedence'] = 'bulk';
  }
  const messageId = `<${row.id}@${domainOf(row.fromEmail)}>`;
  const attachments = await repo.getAttachments(deps.db, row.id);
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

