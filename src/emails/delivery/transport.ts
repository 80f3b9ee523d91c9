import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { HandOffPool } from './handoff-pool.js';
import { loadNodemailer, mimeBuilder, type MimeBuilder } from './mime-builder.js';

/** What a transport reports for one accepted message. */
export interface SendResult {
  messageId: string;
  /** The server's final reply, or the outbox file path. */
  response: string;
  /** True when an SMTP server accepted the message (the next hop has it); false for the outbox and SES. */
  delivered: boolean;
  /**
   * The provider's own id of the message (Amazon SES `MessageId`), by which its delivery feedback names
   * it; stored on the email row. Absent for SMTP and the outbox.
   */
  providerMessageId?: string;
}

/**
 * A refusal that the same message will meet on every attempt (e.g. SES `MessageRejected`): the
 * delivery gives up at once and the email ends FAILED with this message as its reason.
 */
export class PermanentSendError extends Error {
  override name = 'PermanentSendError';
}

/** Optional hooks of one {@link Transport.send}. */
export interface SendHooks {
  /**
   * Called once per send, before the point of no return: the final `.` of SMTP DATA (the outbox:
   * before the file is written). Over SMTP it starts as soon as a connection is held, so its work
   * overlaps MAIL FROM, RCPT TO and DATA; the dot is written only once the returned promise has
   * resolved, and when it rejects the dot is never written and the connection is dropped, so the server
   * discards the unfinished DATA and `send` rejects with the hook's error. When the server refuses
   * earlier (MAIL FROM, RCPT TO) the hook may already have run, and `send` rejects with the refusal.
   */
  beforeHandOff?: () => Promise<void>;
  /**
   * A mail someone is waiting for (not campaign mail): it goes ahead of bulk sends waiting for a
   * connection, and is built on the spot rather than behind queued builds of a busy MIME thread.
   */
  urgent?: boolean;
}

/**
 * Where built messages go. nodemailer builds the MIME and signs it (options.dkim);
 * the transport decides where it goes. SMTP errors are thrown with nodemailer's `responseCode`; a
 * refusal that no retry can change is thrown as {@link PermanentSendError}; anything else is retried.
 */
export interface Transport {
  readonly kind: 'outbox' | 'smtp' | 'ses';
  send(message: Mail.Options, hooks?: SendHooks): Promise<SendResult>;
  close(): Promise<void>;
}

/**
 * Outbox: one `.eml` file per message in `dir` (the default when no SMTP_URL is set). Files are
 * readable by Pigeon's user only (0600, in a 0700 folder, an existing folder's mode corrected): they
 * hold password-reset links and verification tokens.
 */
export function outboxTransport(dir: string): Transport {
  // nodemailer is loaded with the first mail: an idle process does not hold it (docs/production.md).
  let builder: Promise<Transporter> | undefined;
  let made = false;
  return {
    kind: 'outbox',
    async send(message, hooks) {
      if (!made) {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await chmod(dir, 0o700);
        made = true;
      }
      builder ??= loadNodemailer().then((n) =>
        n.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }),
      );
      const info = (await (await builder).sendMail(message)) as unknown as { messageId: string; message: Buffer };
      await hooks?.beforeHandOff?.();
      const file = path.join(dir, `${Date.now()}-${info.messageId.replace(/[^A-Za-z0-9.@_-]/g, '')}.eml`);
      await writeFile(file, info.message, { mode: 0o600 });
      return { messageId: info.messageId, response: file, delivered: false };
    },
    async close() {
      (await builder)?.close();
    },
  };
}

/**
 * SMTP through a nodemailer pool. `url` is `smtp://user:pass@host:port` or `smtps://…`;
 * `?pool=N` sets the number of pooled connections. With credentials,
 * STARTTLS is required (nodemailer `requireTLS`: no AUTH over a connection that did not upgrade) unless
 * the URL says `?requireTLS=false`. `mime` builds and DKIM-signs the messages of sends with a hand-off
 * hook (mime-builder.ts: worker threads when the machine has more than one core). `opts.lookup`
 * gives the checked address to connect to (a project's transport, transports/lookup.ts).
 */
export function smtpTransport(
  url: string,
  mime: MimeBuilder = mimeBuilder(),
  opts: { lookup?: (host: string) => Promise<string> } = {},
): Transport {
  const u = new URL(url);
  const maxConnections = Number(u.searchParams.get('pool') ?? 5) || 5;
  const options: SMTPTransport.Options & { pool: true; maxConnections: number; maxMessages: number } = {
    pool: true,
    maxConnections,
    maxMessages: Infinity,
    host: u.hostname,
    port: Number(u.port || (u.protocol === 'smtps:' ? 465 : 587)),
    secure: u.protocol === 'smtps:',
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
    requireTLS:
      u.searchParams.get('requireTLS') === 'true' ||
      (!!(u.username || u.password) && u.searchParams.get('requireTLS') !== 'false'),
    tls: { rejectUnauthorized: u.searchParams.get('tlsRejectUnauthorized') !== 'false' },
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  };
  // nodemailer's own pool, for sends without a hand-off hook; made (and nodemailer loaded) on first use.
  let t: Promise<Transporter<SMTPTransport.SentMessageInfo>> | undefined;
  // With a hand-off hook the message is built and DKIM-signed first, then sent over a connection of
  // the hand-off pool, whose final "." of DATA waits for the hook (handoff-pool.ts).
  const { pool: _p, maxConnections: _m, maxMessages: _x, auth, ...connection } = options;
  const handOff = new HandOffPool(
    connection,
    auth as { user: string; pass: string } | undefined,
    maxConnections,
    opts.lookup,
  );
  return {
    kind: 'smtp',
    async send(message, hooks) {
      const before = hooks?.beforeHandOff;
      if (!before) {
        t ??= loadNodemailer().then((n) => n.createTransport(options));
        const info = await (await t).sendMail(message);
        return { messageId: info.messageId, response: info.response, delivered: true };
      }
      const built = await mime.build(message, { urgent: hooks?.urgent });
      const info = await handOff.send(built.envelope, built.message, before, { urgent: hooks?.urgent });
      return { messageId: built.messageId, response: info.response, delivered: true };
    },
    async close() {
      (await t)?.close();
      handOff.close();
      await mime.close();
    },
  };
}
