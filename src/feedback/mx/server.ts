import { SMTPServer } from 'smtp-server';
import type { Deps } from '../../deps.js';
import { Gate } from '../../lib/gate.js';
import { SmtpGuard } from '../../lib/smtp-guard.js';
import { listenSmtp, readSmtpHead, smtpError } from '../../lib/smtp-listen.js';
import type { TlsMaterial } from '../../submission/tls.js';
import { handleInboundMessage } from './mx.service.js';
import { readVerpAddress } from '../../emails/verp.js';

/**
 * Largest message accepted (SMTP SIZE, RFC 1870). A report may return the whole original mail (DSN
 * `RET=FULL`, RFC 3461 §4.3), and a transactional mail may carry 10 MB of attachments: refusing such a
 * bounce would lose it. Only its head is kept ({@link REPORT_KEEP_BYTES}); the rest is read and dropped.
 */
export const INBOUND_MAX_BYTES = 15 * 1024 * 1024;
/**
 * Bytes of a message kept and parsed. A DSN (RFC 3464 §2) and an ARF report (RFC 5965 §2) put the
 * human-readable part and the machine-readable report before the returned message, and a free-text
 * bounce says what it says at the top: 256 kB holds all of them with room to spare, whatever follows.
 */
export const REPORT_KEEP_BYTES = 256 * 1024;
/**
 * Messages parsed at once per process: mailparser holds several times a message's size while it
 * works, so the parses, not the clients, decide that memory; a parse of 256 kB takes milliseconds.
 */
const PARSES_AT_ONCE = 2;
/** RCPT TO per message: a report comes to one envelope sender; a few leave room for odd relays. */
const MAX_RECIPIENTS = 10;
const CLOSE_TIMEOUT_MS = 10_000;
/** Concurrent connections: port 25 is open to the whole internet (each holds at most REPORT_KEEP_BYTES). */
export const INBOUND_MAX_CLIENTS = 100;
/**
 * Limits per client: a relay delivers reports over one or two connections; a few more leave room for
 * a provider's parallel queue runners, not for one host taking every slot.
 */
export const INBOUND_LIMITS = {
  perAddress: 5,
  /** From connect to MAIL FROM: a relay's EHLO, STARTTLS and MAIL take well under a second. */
  beforeMailMs: 30_000,
  lifetimeMs: 10 * 60_000,
};

/** A listening inbound (bounce and complaint) SMTP server. */
export interface InboundServer {
  port: number;
  /** Stops accepting connections and closes the open ones (421) after at most 10 s. */
  close(): Promise<void>;
}

interface SessionData {
  /** Email ids named by the verified VERP recipients of the current transaction. */
  emailIds?: string[];
}

/**
 * The SMTP server that receives bounces (DSN, RFC 3464) and complaints (ARF, RFC 5965) for the VERP
 * addresses of `BOUNCE_DOMAIN` (verp.ts): the MX of that domain points here (port 25 in production).
 * - It is a mail exchanger, not a submission server: no AUTH, and any sender (a DSN's is `<>`,
 *   RFC 3464 §2). STARTTLS (RFC 3207) is offered when `opts.tls` gives a certificate (the submission
 *   server's: SMTP_TLS_CERT/KEY, else self-signed), never required: relays encrypt opportunistically
 *   and do not verify an MX's certificate (RFC 7435), and one that cannot still delivers in clear.
 * - RCPT TO must be `bounces+<token>@BOUNCE_DOMAIN` with a valid signature; anything else gets
 *   `550 5.1.1` at RCPT, before any content is read.
 * - SIZE {@link INBOUND_MAX_BYTES}; larger messages get `552 5.3.4`. Of any message only the first
 *   {@link REPORT_KEEP_BYTES} are kept and parsed, so memory is bounded by the connection caps
 *   ({@link INBOUND_MAX_CLIENTS} in all, {@link INBOUND_LIMITS} per client address) whatever is sent.
 * - `250` once the report is applied and committed (inbound.service.ts). A message that is no report,
 *   or cannot be read, is also answered `250` and logged: refusing it would only make the relay send
 *   it again and again. A database fault answers `451 4.3.0` so the relay tries later.
 */
export async function startInboundServer(
  deps: Deps,
  opts: { port?: number; host?: string; tls?: TlsMaterial | null; limits?: Partial<typeof INBOUND_LIMITS> } = {},
): Promise<InboundServer> {
  const { config, log } = deps;
  const domain = config.BOUNCE_DOMAIN;
  if (!domain) throw new Error('BOUNCE_DOMAIN is required for the inbound SMTP server');
  const guard = new SmtpGuard({ ...INBOUND_LIMITS, ...opts.limits });
  const parses = new Gate(PARSES_AT_ONCE);
  const server = new SMTPServer({
    name: domain,
    banner: 'Pigeon bounce processing',
    logger: false,
    secure: false,
    authOptional: true,
    ...(opts.tls ? { key: opts.tls.key, cert: opts.tls.cert } : {}),
    disabledCommands: opts.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    size: INBOUND_MAX_BYTES,
    rejectOversized: true,
    maxRecipients: MAX_RECIPIENTS,
    closeTimeout: CLOSE_TIMEOUT_MS,
    maxClients: INBOUND_MAX_CLIENTS,
    disableReverseLookup: true,

    onConnect: (session, cb) => guard.onConnect(session, cb),
    onClose: (session) => guard.onClose(session),

    onMailFrom(_address, session, cb) {
      guard.onMailFrom(session);
      (session as unknown as SessionData).emailIds = [];
      cb();
    },

    onRcptTo(rcpt, session, cb) {
      const emailId = readVerpAddress(deps.secret, rcpt.address, domain);
      if (!emailId) return cb(smtpError(550, `5.1.1 <${rcpt.address.slice(0, 200)}>: no such mailbox`));
      const s = session as unknown as SessionData;
      (s.emailIds ??= []).push(emailId);
      cb();
    },

    onData(stream, session, cb) {
      const emailIds = (session as unknown as SessionData).emailIds ?? [];
      readSmtpHead(stream, REPORT_KEEP_BYTES)
        .then(async ({ head, sizeExceeded }) => {
          if (sizeExceeded) return cb(); // over SIZE: smtp-server answers 552 itself
          const outcome = await parses.run(() => handleInboundMessage(deps, emailIds, head));
          cb(null, `2.0.0 Report ${outcome}`);
        })
        .catch((err) => {
          log.error({ err, emailIds }, 'inbound report not applied: database fault');
          cb(smtpError(451, '4.3.0 Temporary failure, try again later'));
        });
    },
  });
  guard.attach(server);
  server.on('error', (err) => log.warn({ err }, 'inbound SMTP server error'));

  const port = opts.port ?? config.INBOUND_SMTP_PORT ?? 25;
  const listening = await listenSmtp(server, port, opts.host ?? config.HOST);
  log.info(
    { port: listening.port, domain, tls: opts.tls?.source ?? 'none' },
    'inbound SMTP server listening for bounces and complaints',
  );
  return listening;
}
