import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

/** One message the sink accepted: envelope, raw MIME (for DKIM checks) and the parsed mail. */
export interface SinkMessage {
  from: string;
  to: string[];
  raw: Buffer;
  parsed: ParsedMail;
}

export interface SmtpSinkOptions {
  /**
   * Decides each RCPT: return an SMTP code and message to refuse it (e.g. `[550, 'No such user']`,
   * `[451, 'Try later']`), or undefined to accept. A promise holds the reply until it settles (a
   * slow server).
   */
  onRcpt?: (address: string, attempt: number) => [number, string] | undefined | Promise<[number, string] | undefined>;
}

/** A real SMTP server on 127.0.0.1 (smtp-server + mailparser), the peer of every delivery test. */
export interface SmtpSink {
  port: number;
  /** `smtp://127.0.0.1:<port>` for SMTP_URL. */
  url: string;
  messages: SinkMessage[];
  /** Resolves when at least `n` messages arrived; rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs?: number): Promise<SinkMessage[]>;
  /** Messages whose envelope includes `rcpt`. */
  to(rcpt: string): SinkMessage[];
  /** How many RCPT commands named each address (retries included). */
  rcptAttempts: Map<string, number>;
  /**
   * Envelopes of the messages whose DATA the client broke off: the connection closed before the final
   * dot, so the message was never accepted (and is not in `messages`).
   */
  cut: Array<{ from: string; to: string[] }>;
  close(): Promise<void>;
}

export async function startSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: SinkMessage[] = [];
  const rcptAttempts = new Map<string, number>();
  const cut: Array<{ from: string; to: string[] }> = [];
  const waiters: Array<{ n: number; resolve: (m: SinkMessage[]) => void }> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 60 * 1024 * 1024,
    onRcptTo(address: SMTPServerAddress, _session, cb) {
      const addr = address.address.toLowerCase();
      const attempt = (rcptAttempts.get(addr) ?? 0) + 1;
      rcptAttempts.set(addr, attempt);
      void Promise.resolve(opts.onRcpt?.(addr, attempt)).then((refusal) => {
        if (refusal) {
          const err = new Error(refusal[1]) as Error & { responseCode: number };
          err.responseCode = refusal[0];
          return cb(err);
        }
        cb();
      });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      const envelope = {
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
      };
      // smtp-server ends the stream of a message whose connection closed before the dot with an error.
      stream.on('error', () => cut.push(envelope));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks);
        const parsed = await simpleParser(raw);
        messages.push({
          ...envelope,
          raw,
          parsed,
        });
        for (const w of [...waiters]) {
          if (messages.length >= w.n) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(messages.slice());
          }
        }
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    rcptAttempts,
    cut,
    to: (rcpt) => messages.filter((m) => m.to.includes(rcpt.toLowerCase())),
    waitFor(n, timeoutMs = 15_000) {
      if (messages.length >= n) return Promise.resolve(messages.slice());
      return new Promise((resolve, reject) => {
        const w = { n, resolve };
        waiters.push(w);
        setTimeout(() => {
          const i = waiters.indexOf(w);
          if (i >= 0) {
            waiters.splice(i, 1);
            reject(new Error(`SMTP sink: expected ${n} messages, got ${messages.length} within ${timeoutMs} ms`));
          }
        }, timeoutMs).unref();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
