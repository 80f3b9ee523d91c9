import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { SEND_LIMITS, sendEmails } from '../emails/api/send.service.js';
import { AppError } from '../http/errors.js';
import { BODY_MAX_CHARS } from '../emails/api/content.schema.js';
import { SmtpGuard } from '../lib/smtp-guard.js';
import { listenSmtp, readSmtpData } from '../lib/smtp-listen.js';
import { claimIdempotencyKeyIn } from '../http/idempotency.js';
import { projectByKey } from '../http/auth.js';
import type { KeyProject } from '../http/key-cache.js';
import { checkScopedKey, noteKeyUse, SCOPED_KEY_PREFIX, scopedKeyByToken } from '../keys/key-auth.js';
import type { ProjectRateVerdict } from '../http/rate-limit.js';
import { readSubmission } from './message.js';
import { replyFor, smtpError } from './replies.js';
import type { TlsMaterial } from './tls.js';

/** Recipients of one message: the most `/v1/send` takes in one request. */
export const MAX_RECIPIENTS = 1000;
/** Base64 in MIME: 4 characters per 3 bytes, lines of 76 plus CRLF (RFC 2045 §6.8). */
const base64Bytes = (n: number) => Math.ceil(n / 3) * 4 * (78 / 76);
/**
 * SMTP SIZE (RFC 1870) of a submitted message: what the limits of `/v1/send` let through, encoded.
 * Attachments of at most 10 MB in all, an HTML body and its text part of at most `BODY_MAX_CHARS`
 * characters each (3 UTF-8 bytes per UTF-16 unit at most), all base64, plus 1 MB of headers.
 */
export const SUBMISSION_MAX_BYTES = Math.ceil(
  base64Bytes(SEND_LIMITS.attachmentBytes) + 2 * base64Bytes(3 * BODY_MAX_CHARS) + 1024 * 1024,
);
/** Concurrent connections in all, and per client address (an IPv6 /64). */
export const SUBMISSION_MAX_CLIENTS = 100;
/**
 * Limits per client: an application submits over a few pooled connections; failed AUTH ends a
 * connection after 3 tries and, after 10 from one address in 15 minutes, AUTH answers 454 from there
 * until the window passes (a guess at a secret key costs 15 minutes per 10 tries).
 */
export const SUBMISSION_LIMITS = {
  perAddress: 10,
  beforeMailMs: 60_000,
  lifetimeMs: 30 * 60_000,
  authFailuresPerConnection: 3,
  authFailuresPerAddress: 10,
  authWindowMs: 15 * 60_000,
};
/** How long a shutdown lets sessions finish before closing them with 421 (ms). */
const CLOSE_TIMEOUT_MS = 10_000;
/** The method and path an SMTP submission's key is recorded with in `idempotency_keys`. */
const KEY_METHOD = 'SMTP';
const KEY_PATH = 'submission';

/** A listening submission server. */
export interface SubmissionServer {
  port: number;
  /** Whether STARTTLS is offered, and with which certificate. */
  tls: TlsMaterial['source'] | 'none';
  /** Stops accepting connections and closes the open ones (421) after at most 10 s. */
  close(): Promise<void>;
}

export interface SubmissionOptions {
  /** From `loadTls`; null: no STARTTLS (only with SMTP_SUBMISSION_ALLOW_INSECURE). */
  tls: TlsMaterial | null;
  /** The project rate limit (`projectRateCheck`), or null when it is off. */
  rateCheck: ((projectId: string) => Promise<ProjectRateVerdict>) | null;
  /** Defaults: `SMTP_SUBMISSION_PORT` and `HOST`. */
  port?: number;
  host?: string;
  /** Tests: other limits than {@link SUBMISSION_LIMITS}. */
  limits?: Partial<typeof SUBMISSION_LIMITS>;
}

interface SessionUser {
  projectId: string;
}

const address = z.email();

/** Thrown in the send transaction when the Message-ID was submitted before: rolls the rows back. */
class AlreadySubmitted extends Error {}

/**
 * The SMTP submission server (RFC 6409): mail from an application's SMTP client, sent the way
 * `POST /v1/send` sends it, through the same `sendEmails` (sender domain check, contacts, billing cap,
 * tracking and DKIM at delivery).
 * - STARTTLS (RFC 3207) with `opts.tls`; AUTH PLAIN and LOGIN (RFC 4954) only after it, unless
 *   `SMTP_SUBMISSION_ALLOW_INSECURE`. The password is the project's secret key (`sk_…`), the user
 *   name is not looked at. AUTH is required before MAIL.
 * - Each message counts as one request against the project's `RATE_LIMIT_PER_MINUTE`.
 * - SIZE is {@link SUBMISSION_MAX_BYTES}; at most {@link MAX_RECIPIENTS} RCPT TO per message (452 4.5.3
 *   after that). A message is held in memory only within the process's input budget (451 beyond it).
 * - Connections and failed AUTH are limited per client address ({@link SUBMISSION_LIMITS}).
 * - `250` is answered once the email rows and their jobs are committed. The message's Message-ID is
 *   its idempotency key, claimed in that same transaction: a client that submits the message again
 *   (its connection dropped before the `250`, or after a crash) gets `250` and no second email.
 * Replies to errors: replies.ts.
 */
export async function startSubmissionServer(deps: Deps, opts: SubmissionOptions): Promise<SubmissionServer> {
  const { config, log } = deps;
  const insecure = config.SMTP_SUBMISSION_ALLOW_INSECURE;
  const guard = new SmtpGuard({ ...SUBMISSION_LIMITS, ...opts.limits });
  const server = new SMTPServer({
    name: hostName(config.PUBLIC_URL),
    banner: 'Pigeon mail submission',
    logger: false,
    secure: false,
    ...(opts.tls ? { key: opts.tls.key, cert: opts.tls.cert } : {}),
    disabledCommands: opts.tls ? [] : ['STARTTLS'],
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    allowInsecureAuth: insecure,
    size: SUBMISSION_MAX_BYTES,
    rejectOversized: true,
    maxRecipients: MAX_RECIPIENTS,
    maxClients: SUBMISSION_MAX_CLIENTS,
    closeTimeout: CLOSE_TIMEOUT_MS,
    disableReverseLookup: true,

    onConnect: (session, cb) => guard.onConnect(session, cb),
    onClose: (session) => guard.onClose(session),
    onMailFrom(_address, session, cb) {
      guard.onMailFrom(session);
      cb();
    },

    onAuth(auth, session, cb) {
      const refusal = guard.authRefusal(session);
      if (refusal) return cb(refusal);
      const failed = (text: string) => {
        guard.authFailed(session);
        cb(smtpError(535, text));
      };
      const key = auth.password ?? '';
      const scoped = key.startsWith(SCOPED_KEY_PREFIX);
      if (!key.startsWith('sk_') && !scoped)
        return failed(
          '5.7.8 Authentication failed: the password is the project secret key (sk_…) or a scoped key with "send" (psk_…)',
        );
      const lookup: Promise<KeyProject | null> = scoped
        ? scopedKeyByToken(deps, key)
        : projectByKey(deps, key, 'secret');
      lookup.then(
        (project) => {
          if (!project) return failed(`5.7.8 Authentication failed: unknown ${scoped ? 'scoped' : 'secret'} key`);
          if (project.disabled) return failed('5.7.8 Authentication failed: this project is disabled');
          if (project.key) {
            // A scoped key submits as it would call POST /v1/send: its lifetime, address and scope.
            try {
              checkScopedKey(project.key, session.remoteAddress, 'POST', '/v1/send', deps.clock.now());
            } catch (err) {
              return failed(`5.7.8 Authentication failed: ${(err as Error).message}`);
            }
            noteKeyUse(deps, project.key.id);
          }
          cb(null, { user: { projectId: project.id } satisfies SessionUser });
        },
        (err) => {
          log.error({ err }, 'SMTP submission: key look-up failed');
          cb(smtpError(454, '4.7.0 Temporary authentication failure'));
        },
      );
    },

    onRcptTo(rcpt, _session, cb) {
      if (!address.safeParse(rcpt.address).success)
        return cb(smtpError(553, `5.1.3 Invalid recipient address ${rcpt.address}`));
      cb();
    },

    onData(stream, session, cb) {
      readSmtpData(stream, SUBMISSION_MAX_BYTES)
        .then(async (data) => {
          // rejectOversized answers 552 5.3.4 itself; the stream was drained, not kept.
          if (!data.ok && data.reason === 'too-big') return cb();
          if (!data.ok)
            return cb(smtpError(451, '4.3.0 The server is receiving too much mail at once; try again in a minute'));
          cb(null, await handle(deps, opts, session, data.raw));
        })
        .catch((err) => {
          if (!(err instanceof AppError)) log.error({ err }, 'SMTP submission: message not queued');
          cb(replyFor(err));
        });
    },
  });
  guard.attach(server);
  server.on('error', (err) => log.warn({ err }, 'SMTP submission server error'));

  const port = opts.port ?? config.SMTP_SUBMISSION_PORT ?? 587;
  const listening = await listenSmtp(server, port, opts.host ?? config.HOST);
  log.info(
    { port: listening.port, tls: opts.tls?.source ?? 'none', insecureAuth: insecure },
    'SMTP submission server listening',
  );
  return { ...listening, tls: opts.tls?.source ?? 'none' };
}

/**
 * One message: rate limit, then the message read into a `/v1/send` request and sent by `sendEmails`,
 * which claims the Message-ID in its transaction. @returns the text of the `250` reply.
 * @throws AppError of the send path (replies.ts maps it).
 */
async function handle(deps: Deps, opts: SubmissionOptions, session: SMTPServerSession, raw: Buffer): Promise<string> {
  const { projectId } = session.user as SessionUser;
  if (opts.rateCheck) {
    const v = await opts.rateCheck(projectId);
    if (!v.allowed) {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit of ${v.limit} requests per minute exceeded, retry in ${v.retryAfterSeconds} s`,
      );
    }
  }
  const envelope = {
    mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
    rcptTo: session.envelope.rcptTo.map((r) => r.address),
  };
  const { input, idempotencyKey } = await readSubmission(raw, envelope);
  const key = idempotencyKey;
  try {
    const out = await sendEmails(deps, projectId, input, {
      inTransaction: key
        ? async (tx) => {
            if (!(await claimIdempotencyKeyIn(tx, deps, projectId, key, KEY_METHOD, KEY_PATH, 250)))
              throw new AlreadySubmitted();
          }
        : undefined,
    });
    deps.log.info({ projectId, messageId: key, emails: out.emails.length }, 'SMTP submission: message queued');
    return `2.0.0 Queued ${out.emails.length} email(s): ${out.emails.map((e) => e.email).join(' ')}`.slice(0, 500);
  } catch (err) {
    if (!(err instanceof AlreadySubmitted)) throw err;
    deps.log.info({ projectId, messageId: key }, 'SMTP submission: Message-ID submitted before; not sent again');
    return '2.0.0 Already queued: this Message-ID was submitted before, not sent again';
  }
}

/** Host name of `PUBLIC_URL` for the greeting. */
function hostName(url: string): string {
  try {
    return new URL(url).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}
