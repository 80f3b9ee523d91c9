import { SMTPServer } from 'smtp-server';
import type { Deps } from '../deps.js';
import { listenSmtp, readSmtpData } from '../lib/smtp-listen.js';
import { smtpError } from '../submission/replies.js';
import type { TlsMaterial } from '../submission/tls.js';
import { handleInboundMessage } from './inbound.service.js';
import { readVerpAddress } from './verp.js';

/** Largest report accepted (SMTP SIZE, RFC 1870): reports carry at most the returned original mail. */
export const INBOUND_MAX_BYTES = 10 * 1024 * 1024;
/** RCPT TO per message: a report comes to one envelope sender; a few leave room for odd relays. */
const MAX_RECIPIENTS = 10;
const CLOSE_TIMEOUT_MS = 10_000;
/** Concurrent connections: port 25 is open to the whole internet. */
const MAX_CLIENTS = 200;

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
 * - SIZE {@link INBOUND_MAX_BYTES}; larger messages get `552 5.3.4`.
 * - `250` once the report is applied and committed (inbound.service.ts). A message that is no report,
 *   or cannot be read, is also answered `250` and logged: refusing it would only make the relay send
 *   it again and again. A database fault answers `451 4.3.0` so the relay tries later.
 */
export async function startInboundServer(deps: Deps, opts: { port?: number; host?: string; tls?: TlsMaterial | null } = {}): Promise<InboundServer> {
  const { config, log } = deps;
  const domain = config.BOUNCE_DOMAIN;
  if (!domain) throw new Error('BOUNCE_DOMAIN is required for the inbound SMTP server');
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
    maxClients: MAX_CLIENTS,
    disableReverseLookup: true,

    onMailFrom(_address, session, cb) {
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
      readSmtpData(stream, INBOUND_MAX_BYTES).then(async (raw) => {
        if (!raw) return cb(); // over SIZE: smtp-server answers 552 itself
        const outcome = await handleInboundMessage(deps, emailIds, raw);
        cb(null, `2.0.0 Report ${outcome}`);
      }).catch((err) => {
        log.error({ err, emailIds }, 'inbound report not applied: database fault');
        cb(smtpError(451, '4.3.0 Temporary failure, try again later'));
      });
    },
  });
  server.on('error', (err) => log.warn({ err }, 'inbound SMTP server error'));

  const port = opts.port ?? config.INBOUND_SMTP_PORT ?? 25;
  const listening = await listenSmtp(server, port, opts.host ?? config.HOST);
  log.info({ port: listening.port, domain, tls: opts.tls?.source ?? 'none' }, 'inbound SMTP server listening for bounces and complaints');
  return listening;
}

