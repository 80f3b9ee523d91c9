import { randomUUID } from 'node:crypto';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { Deps } from '../../deps.js';
import { LOCALE_KEY, normalizeLocale } from '../../content/locale.js';
import {
  domainOf,
  senderClearance,
  UNVERIFIED_SENDER_HEADER,
  UNVERIFIED_SENDER_VALUE,
} from '../../domains/verified.js';
import * as repo from '../emails.repo.js';
import { enqueue } from '../../worker/jobs.js';
import { sendEmailJob } from '../emails.jobs.js';
import {
  claimBatch,
  claimForDelivery,
  markBounced,
  markFailed,
  markHandOffMany,
  markRetry,
  markSentMany,
  type Claim,
  type ClaimedEmail,
  type HandOffMark,
  type SentOutcome,
} from './outcomes.js';
import { GroupCommit } from '../../db/group-commit.js';
import { DELIVERY_MAX_ATTEMPTS } from '../emails.jobs.js';
import {
  MessageRenderError,
  NO_CONTACT_ID,
  renderEmail,
  type RenderedMessage,
  type TrackingMode,
} from '../render/render.js';
import { PermanentSendError } from './transport.js';
import { sendRouted, transportOf } from '../../transports/registry.js';
import { transportChanged } from '../../transports/notify.js';
import { verpAddress } from '../verp.js';
import { keyring, secretPlaces } from '../../lib/secret-places.js';
import { openSecret, type Keyring } from '../../lib/secrets.js';
import { KEY_CACHE_SIZE } from './dkim-keys.js';

/**
 * The `emails:send` job: claim the row, render, build the MIME with nodemailer, DKIM-sign it with the
 * sender domain's key and hand it to a transport of its route (transports/registry.ts `sendRouted`:
 * the project's routing rules, else the instance's `deps.transport`; a failing transport's mail moves
 * on to the next one before its hand-off mark, never after).
 *
 * Exactly once, and on the safe side where it cannot be exact. The row is claimed with a fresh claim
 * token (outcomes.ts `claimForDelivery`); a row left SENDING by a run that died is claimed again and
 * sent again. Before the final "." of SMTP DATA the hand-off mark (`message_id`) is written,
 * conditional on the token, and the dot waits for it to commit: if another run took the row over, the
 * mark finds nothing and the dot is never written, so two live runs do not both deliver. (The mark is
 * started with the SMTP transaction, so its round trip overlaps MAIL FROM, RCPT TO and DATA; a takeover
 * in the milliseconds between the mark and the dot, which only happens to a run whose process lost its
 * liveness lock, would give at worst a copy with the same Message-ID.)
 * What remains is the window RFC 1047 describes, from the dot to the server's reply and our record of
 * it: a kill inside it makes the next run send the mail again, with the same Message-ID
 * (`<emailId@domain>`) so receivers can tell the copies apart; a kill anywhere else loses nothing. A
 * possible duplicate beats a lost mail: nothing is ever left FAILED without having been tried.
 *
 * Outcomes (SMTP outcome rules): accepted → SENT (+ DELIVERED when an SMTP server took it); 5xx on RCPT
 * or DATA → BOUNCED (hard bounce); a refusal no retry can change (transport.ts `PermanentSendError`,
 * e.g. SES `MessageRejected`) → FAILED with the reason; anything else (4xx, connection fault) → back to PENDING and the job
 * throws, so Graphile Worker retries it with exponential backoff; on the last attempt → FAILED.
 */
export interface Attempt {
  /** This run's attempt number, 1-based (Graphile's `job.attempts`). */
  attempt: number;
  maxAttempts: number;
}

/** Thrown to make Graphile Worker retry a temporary failure. */
export class RetryableDeliveryError extends Error {}

/** Mails of one batch job in flight at once (they queue for the transport's connections anyway). */
const BATCH_PARALLEL = 5;
/** A mail of a batch that failed temporarily is retried alone, by an `emails:send` job, after this. */
const BATCH_RETRY_DELAY_MS = 3_000;

/** Runs one attempt of the `emails:send` job for `emailId` (see above). @throws RetryableDeliveryError to be retried. */
export async function deliverEmail(deps: Deps, emailId: string, attempt: Attempt): Promise<void> {
  const claimed = await claimForDelivery(deps.db, emailId, randomUUID(), deps.clock.now());
  if (claimed.kind === 'suppressed') deps.metrics.emailTransitions.inc({ to: 'SUPPRESSED' });
  if (claimed.kind !== 'claimed') return;
  const failure = await sendClaimed(deps, claimed);
  if (failure) return retryOrFail(deps, claimed.claim, attempt, failure);
}

/**
 * Runs the `emails:send-batch` job: the listed emails (bulk mail, e.g. one campaign fan-out batch)
 * are claimed in one statement, then rendered, signed and handed over {@link BATCH_PARALLEL} at a time,
 * their SENT outcomes written together (group commit, see {@link recordSent}). A mail that fails
 * temporarily goes back to PENDING and is retried alone by an `emails:send` job (exponential backoff,
 * {@link DELIVERY_MAX_ATTEMPTS} in all), so one slow recipient never holds back or repeats the others.
 * @throws when the claim or an outcome cannot be written: Graphile then runs the batch again, and
 *   the claim takes back exactly the rows still PENDING or SENDING.
 */
export async function deliverBatch(deps: Deps, emailIds: string[]): Promise<void> {
  const { claimed, suppressed } = await claimBatch(deps.db, emailIds, randomUUID(), deps.clock.now());
  if (suppressed) deps.metrics.emailTransitions.inc({ to: 'SUPPRESSED' }, suppressed);
  let next = 0;
  const lane = async () => {
    while (next < claimed.length) {
      const item = claimed[next++];
      const failure = await sendClaimed(deps, item);
      if (failure) await retryAlone(deps, item.claim, failure);
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_PARALLEL, claimed.length) }, lane));
}

/**
 * Sends one claimed email and records a final outcome (SENT/DELIVERED, BOUNCED, or FAILED for good).
 * @returns the diagnostic of a temporary failure, for the caller to retry; undefined when the row
 *   reached a final state or was taken over by another run.
 */
async function sendClaimed(
  deps: Deps,
  claimed: { claim: Claim; handedOff: boolean; data: ClaimedEmail },
): Promise<string | undefined> {
  const now = () => deps.clock.now();
  const { claim } = claimed;
  const emailId = claim.emailId;
  if (claimed.handedOff) {
    deps.log.warn(
      { emailId },
      'sending again an email whose previous run died after the hand-off mark: the recipient may get it twice, with the same Message-ID',
    );
  }
  let prepared: Prepared | string;
  try {
    prepared = await prepare(deps, claimed.data);
  } catch (err) {
    // Nothing left yet: a database or rendering fault is retried like a transport fault.
    return (err as Error)?.message ?? String(err);
  }
  if (typeof prepared === 'string') {
    deps.metrics.emailTransitions.inc({ to: 'FAILED' });
    await markFailed(deps.db, claim, prepared, now());
    return;
  }
  const { message, messageId, subject } = prepared;

  let lost = false;
  let result;
  const timer = deps.metrics.smtpDuration.startTimer();
  const { email } = claimed.data;
  try {
    ({ result } = await sendRouted(deps, {
      projectId: email.projectId,
      mail: email,
      handedTo: email.transport,
      localOnly: prepared.localOnly,
      message,
      onChange: (change) => transportChanged(deps, change),
      hooks: (transport) => ({
        // Campaign mail is bulk; everything else (a /v1/send, a test send, a workflow step) has someone waiting.
        urgent: email.campaignId === null,
        // The mark takes any free connection of the pool, and the dot follows the moment it commits.
        beforeHandOff: async () => {
          if (
            !(await handOffMarks(deps).submit({ mark: { claim, messageId, transport }, projectId: email.projectId }))
          ) {
            lost = true;
            throw new Error(`email ${emailId} was taken over by another delivery run; not finishing DATA`);
          }
        },
      }),
    }));
  } catch (err) {
    if (lost) {
      deps.log.warn({ emailId }, 'delivery run lost its claim before the hand-off; the run that took over sends it');
      return;
    }
    const e = err as { responseCode?: number; command?: string; response?: string; message?: string };
    const diagnostic = (e.response ?? e.message ?? String(err)).slice(0, 1000);
    if (err instanceof PermanentSendError) {
      // A refusal of the message itself (SES MessageRejected): no retry would change it.
      timer({ outcome: 'failed' });
      deps.metrics.emailTransitions.inc({ to: 'FAILED' });
      await markFailed(deps.db, claim, diagnostic, now());
      return;
    }
    if (e.responseCode && e.responseCode >= 500 && (e.command === 'RCPT TO' || e.command === 'DATA')) {
      timer({ outcome: 'bounced' });
      deps.metrics.emailTransitions.inc({ to: 'BOUNCED' });
      await deps.db.transaction((tx) => markBounced(tx, claim, messageId, diagnostic, now(), transportOf(err)));
      return;
    }
    timer({ outcome: 'deferred' });
    return diagnostic;
  }
  timer({ outcome: 'delivered' });
  deps.metrics.emailTransitions.inc({ to: result.delivered ? 'DELIVERED' : 'SENT' });
  await recordSent(
    deps,
    {
      claim,
      messageId,
      subject,
      delivered: result.delivered,
      ...(result.providerMessageId ? { providerMessageId: result.providerMessageId } : {}),
    },
    claimed.data.email.projectId,
  );
}

/** A temporary failure of the `emails:send` job: FAILED after the last attempt, else back to PENDING and throw for a retry. */
async function retryOrFail(deps: Deps, claim: Claim, attempt: Attempt, diagnostic: string): Promise<void> {
  if (attempt.attempt >= attempt.maxAttempts) {
    deps.metrics.emailTransitions.inc({ to: 'FAILED' });
    return markFailed(deps.db, claim, `Gave up after ${attempt.attempt} attempts: ${diagnostic}`, deps.clock.now());
  }
  deps.metrics.emailTransitions.inc({ to: 'PENDING' });
  await markRetry(deps.db, claim, diagnostic, deps.clock.now());
  throw new RetryableDeliveryError(
    `Delivery of email ${claim.emailId} failed temporarily (attempt ${attempt.attempt}): ${diagnostic}`,
  );
}

/** A temporary failure inside a batch: back to PENDING, and an `emails:send` job of its own retries it. */
async function retryAlone(deps: Deps, claim: Claim, diagnostic: string): Promise<void> {
  deps.metrics.emailTransitions.inc({ to: 'PENDING' });
  await deps.db.transaction(async (tx) => {
    await markRetry(tx, claim, diagnostic, deps.clock.now());
    // The batch run was the first attempt; Graphile's backoff spaces out the remaining ones.
    await enqueue(
      tx,
      sendEmailJob,
      { emailId: claim.emailId },
      {
        maxAttempts: DELIVERY_MAX_ATTEMPTS - 1,
        runAt: new Date(Date.now() + BATCH_RETRY_DELAY_MS),
      },
    );
  });
}

/**
 * Group commit of SENT outcomes, per process (db/group-commit.ts): outcomes that arrive while a write
 * is in flight are written together by the next one (one statement per project, outcomes.ts
 * `markSentMany`, one write in flight at a time), so under load a handful of mails share each commit
 * while a lone mail is written at once. The promise resolves once the outcome is committed. A mail
 * whose outcome is not yet written when the process dies is in the RFC 1047 window described above:
 * sent again, with the same Message-ID.
 */
function recordSent(deps: Deps, outcome: SentOutcome, projectId: string): Promise<void> {
  let c = recorders.get(deps);
  if (!c) {
    c = new GroupCommit({
      maxInFlight: 1,
      maxInFlightPerKey: 1,
      maxBatch: 500,
      maxBytes: Infinity,
      key: (o) => o.projectId,
      distinct: (o) => o.outcome.claim.emailId,
      size: () => 1,
      async run(key, items) {
        await markSentMany(
          deps.db,
          items.map((o) => o.outcome),
          deps.clock.now(),
          key,
        );
        return items.map(() => undefined);
      },
    });
    recorders.set(deps, c);
  }
  return c.submit({ outcome, projectId });
}
const recorders = new WeakMap<Deps, GroupCommit<{ outcome: SentOutcome; projectId: string }, void>>();

/**
 * Hand-off marks in group commit (db/group-commit.ts), per process: the marks of mails whose SMTP
 * transactions overlap share one statement and one commit. A lone mark is written at once; marks
 * that come in while one of their project's statements runs go together in the next. Each mark was a
 * statement of its own before, and their socket writes were a visible share of a campaign worker's
 * CPU; most marks still go alone, a round trip being short against the time between mails
 * (bench/campaign.ts). A batch that fails is retried mark by mark, so one failure refuses
 * only its own mail's dot.
 */
function handOffMarks(deps: Deps): GroupCommit<{ mark: HandOffMark; projectId: string }, boolean> {
  let c = markers.get(deps);
  if (!c) {
    c = new GroupCommit({
      maxInFlight: 4,
      maxInFlightPerKey: 1,
      maxBatch: 200,
      maxBytes: Infinity,
      key: (m) => m.projectId,
      distinct: (m) => m.mark.claim.emailId,
      size: () => 1,
      async run(_projectId, items) {
        const marked = await markHandOffMany(
          deps.pool,
          items.map((m) => m.mark),
        );
        return items.map((m) => marked.has(m.mark.claim.emailId));
      },
    });
    markers.set(deps, c);
  }
  return c;
}
const markers = new WeakMap<Deps, GroupCommit<{ mark: HandOffMark; projectId: string }, boolean>>();

/**
 * The header fields the DKIM signature covers (its `h=` tag), those present in the message:
 * RFC 6376 §5.4.1's recommended set, plus `List-Unsubscribe-Post`, which RFC 8058 §4 requires to be
 * signed together with `List-Unsubscribe` (receivers ignore a one-click header that is not), and
 * `Precedence`. nodemailer's default list lacks `List-Unsubscribe-Post`.
 */
export const DKIM_SIGNED_HEADERS = [
  'From',
  'Sender',
  'Reply-To',
  'Subject',
  'Date',
  'Message-ID',
  'To',
  'Cc',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'Content-ID',
  'Content-Description',
  'In-Reply-To',
  'References',
  'List-Id',
  'List-Help',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
  'List-Subscribe',
  'List-Post',
  'List-Owner',
  'List-Archive',
  'Precedence',
].join(':');

interface Prepared {
  message: Mail.Options;
  /** True for an unverified sender's mail, which only the instance's outbox may take (domains/verified.ts). */
  localOnly: boolean;
  messageId: string;
  /** The rendered subject, stored on the row once sent. */
  subject: string;
}

/**
 * Builds the message from what the claim read: rendered body, headers, attachments (the shared
 * content, read once per process), DKIM key. A sender no verified domain covers is sent only as the
 * sender rule allows (domains/verified.ts `senderClearance`: the outbox), unsigned and marked with
 * `X-Pigeon-Unverified-Sender: outbox only`.
 * @returns the message, or a reason to fail it for good (contact deleted, sender domain unverified,
 *   a template that does not render).
 */
async function prepare(deps: Deps, claimed: ClaimedEmail): Promise<Prepared | string> {
  const now = () => deps.clock.now();
  const { email: row, domain } = claimed;
  // A template's test is queued for no contact (it must not add one): its sample data is in `variables`.
  const contact =
    claimed.contact ??
    (row.sourceType === 'TEST' ? { id: NO_CONTACT_ID, email: row.toEmail, data: row.variables } : null);
  if (!contact) return 'The contact was deleted before the email was sent';
  const clearance = senderClearance(deps, domain);
  if (clearance.kind === 'refused') return `The sender domain ${domainOf(row.fromEmail)} is no longer verified`;
  let dkim: Mail.Options['dkim'];
  if (clearance.kind === 'signed') {
    const signer = clearance.domain;
    try {
      const privateKey = openDkimKey(keyring(deps), signer.id, signer.dkimPrivateKey);
      dkim = {
        domainName: signer.domain,
        keySelector: signer.dkimSelector,
        privateKey,
        headerFieldNames: DKIM_SIGNED_HEADERS,
      };
    } catch (err) {
      // No retry opens it: the key that sealed it is not configured (ENCRYPTION_KEY), or the row was altered.
      return `The DKIM key of ${signer.domain} cannot be read: ${(err as Error).message}`;
    }
  }
  const content = await repo.getContent(deps.db, row);

  let rendered: RenderedMessage;
  try {
    rendered = await renderEmail({
      emailId: row.id,
      subject: row.subject,
      body: content.body,
      type: row.type,
      tracking: claimed.tracking as TrackingMode,
      contactData: contact.data,
      variables: row.variables,
      contact: { id: contact.id, email: contact.email },
      topic: claimed.topic,
      publicUrl: deps.config.PUBLIC_URL,
      secret: deps.secret,
      // The reader's language (issue 38): an invalid value stays in the data but names no language.
      locale: normalizeLocale(contact.data[LOCALE_KEY]),
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
  if (clearance.kind === 'unsigned') {
    // Whoever opens the .eml sees why it has no DKIM-Signature; a caller's own copy cannot say otherwise.
    for (const k of Object.keys(headers))
      if (k.toLowerCase() === UNVERIFIED_SENDER_HEADER.toLowerCase()) delete headers[k];
    headers[UNVERIFIED_SENDER_HEADER] = UNVERIFIED_SENDER_VALUE;
  }
  const messageId = `<${row.id}@${domainOf(row.fromEmail)}>`;
  const { attachments } = content;
  const message: Mail.Options = {
    from: { name: row.fromName ?? '', address: row.fromEmail },
    to: { name: row.toName ?? '', address: row.toEmail },
    // With BOUNCE_DOMAIN, bounces go to a VERP address naming this email (MAIL FROM); From stays the sender.
    ...(deps.config.BOUNCE_DOMAIN
      ? { envelope: { from: verpAddress(deps.secret, row.id, deps.config.BOUNCE_DOMAIN), to: [row.toEmail] } }
      : {}),
    ...(row.replyTo ? { replyTo: row.replyTo } : {}),
    subject: rendered.subject,
    html: rendered.html,
    text: rendered.text,
    messageId,
    date: now(),
    headers,
    attachments: attachments.map((a) => ({
      filename: a.filename,
      content: a.content,
      ...(a.contentType ? { contentType: a.contentType } : {}),
    })),
    ...(dkim ? { dkim } : {}),
  };
  return { message, messageId, subject: rendered.subject, localOnly: clearance.kind === 'unsigned' };
}

/**
 * A sender domain's DKIM key as PEM, opened from its sealed column value (lib/secrets.ts) once per
 * process and kept by that value, the oldest dropped past {@link KEY_CACHE_SIZE}. Opening is an AES
 * decryption of a 1.7 kB key, a share of each signed mail's CPU a campaign does not need to pay per
 * mail; the same opened string then hits dkim-keys.ts `withParsedKey`'s cache without being hashed again.
 * A re-sealed or rotated key is another column value, so it is opened afresh; each keyring (lib/secrets.ts
 * `keyringOf`, one object per setting) has a cache of its own, so a value is never taken as opened under
 * keys that could not open it.
 * @throws what `openSecret` throws (the key that sealed it is not configured, or the value was altered).
 */
function openDkimKey(ring: Keyring, domainId: string, sealed: string): string {
  let opened = openedBy.get(ring);
  if (!opened) openedBy.set(ring, (opened = new Map()));
  const cacheKey = `${domainId} ${sealed}`;
  let pem = opened.get(cacheKey);
  if (pem === undefined) {
    pem = openSecret(ring, sealed, secretPlaces.dkimKey(domainId));
    if (opened.size >= KEY_CACHE_SIZE) opened.delete(opened.keys().next().value!);
    opened.set(cacheKey, pem);
  }
  return pem;
}
const openedBy = new WeakMap<Keyring, Map<string, string>>();
