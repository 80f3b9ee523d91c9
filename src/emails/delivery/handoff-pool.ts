import { Readable } from 'node:stream';
import type SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';

/**
 * SMTP connections for sends with a hand-off hook (transport.ts `SendHooks.beforeHandOff`), added for
 * campaign crash safety. nodemailer's pool reads a message stream into its own buffers as soon as a
 * send starts, before MAIL FROM, so it cannot hold back the final "." of DATA. Here the built message
 * is given straight to `SMTPConnection.send` behind a gate: the hook starts as soon as a connection is
 * held, so its database round trip runs while MAIL FROM, RCPT TO and DATA go back and forth, and the
 * final dot is written only once it has resolved (right away if it already has); when it rejects the
 * dot is never written. Connections are kept open and reused, at most `max` at once.
 */
export class HandOffPool {
  private idle: SMTPConnection[] = [];
  private open = 0;
  private waiters: Array<() => void> = [];
  /** How many of `waiters`, at its front, are urgent (FIFO among themselves, ahead of the rest). */
  private urgentWaiting = 0;
  private closed = false;

  /**
   * @param lookup gives the address to connect to for the host, checked (a project's transport may
   *   not reach private addresses, transports/lookup.ts); the host still names the server for TLS.
   */
  constructor(
    private readonly options: SMTPConnection.Options,
    private readonly auth: SMTPConnection.Credentials | undefined,
    private readonly max: number,
    private readonly lookup?: (host: string) => Promise<string>,
  ) {}

  /**
   * Sends the built (signed) message `raw` with `before()` run between the content and the final dot.
   * `urgent`: waits for a connection ahead of the non-urgent sends already waiting.
   * @throws nodemailer's SMTP errors (`responseCode`, `command`), or the hook's error.
   */
  async send(
    envelope: { from: string; to: string[] },
    raw: Buffer,
    before: () => Promise<void>,
    opts: { urgent?: boolean } = {},
  ): Promise<{ response: string }> {
    const conn = await this.acquire(opts.urgent ?? false);
    // Started with the SMTP transaction rather than after the content: a mark measured 4–6 ms under
    // load, as long as the rest of the transaction, and each connection would sit idle through it.
    const handOff = Promise.resolve().then(before);
    handOff.catch(() => undefined); // observed by the gate; a refusal before DATA never reaches it
    try {
      const info = await new Promise<SMTPConnection.SentMessageInfo>((resolve, reject) => {
        conn.send(envelope, gatedStream(raw, handOff), (err, i) => (err ? reject(err) : resolve(i)));
      });
      this.release(conn, true);
      return { response: info.response };
    } catch (err) {
      // After a refusal or a fault the session state is unknown: a fresh connection next time.
      this.release(conn, false);
      throw err;
    }
  }

  close(): void {
    this.closed = true;
    for (const c of this.idle) c.quit();
    this.idle = [];
  }

  private async acquire(urgent: boolean): Promise<SMTPConnection> {
    for (;;) {
      const conn = this.idle.pop();
      if (conn) return conn;
      if (this.open < this.max) {
        this.open++;
        try {
          return await this.connect();
        } catch (err) {
          this.open--;
          this.wake();
          throw err;
        }
      }
      await new Promise<void>((r) => {
        if (urgent)
          this.waiters.splice(this.urgentWaiting++, 0, () => {
            this.urgentWaiting--;
            r();
          });
        else this.waiters.push(r);
      });
    }
  }

  private release(conn: SMTPConnection, reusable: boolean): void {
    if (reusable && !this.closed && !(conn as unknown as { _destroyed?: boolean })._destroyed) this.idle.push(conn);
    else {
      this.open--;
      conn.close();
    }
    this.wake();
  }

  private wake(): void {
    this.waiters.shift()?.();
  }

  private async connect(): Promise<SMTPConnection> {
    // Loaded with the first connection, like the rest of nodemailer (mime-builder.ts `loadNodemailer`).
    const { default: Connection } = await import('nodemailer/lib/smtp-connection/index.js');
    const host = this.options.host ?? 'localhost';
    const options = this.lookup ? { ...this.options, host: await this.lookup(host), servername: host } : this.options;
    return new Promise((resolve, reject) => {
      const conn = new Connection(options);
      let settled = false;
      conn.on('error', (err) => {
        if (!settled) {
          settled = true;
          reject(err);
        }
      });
      // A connection that ends while idle is dropped from the idle list.
      conn.on('end', () => {
        const i = this.idle.indexOf(conn);
        if (i >= 0) {
          this.idle.splice(i, 1);
          this.open--;
          this.wake();
        }
      });
      conn.connect(() => {
        const done = () => {
          settled = true;
          resolve(conn);
        };
        if (!this.auth) return done();
        conn.login(this.auth, (err) => {
          if (err) {
            settled = true;
            conn.close();
            return reject(err);
          }
          done();
        });
      });
    });
  }
}

/**
 * Streams `buf`; when it has been taken, waits for `handOff` and ends the stream as soon as it resolves
 * (SMTPConnection then writes the final dot), or destroys the stream when it rejects: `pipe` does not
 * end its destination on a source error, so the dot is never written (transport `SendHooks`).
 */
function gatedStream(buf: Buffer, handOff: Promise<void>): Readable {
  let stage = 0;
  return new Readable({
    read() {
      if (stage === 0) {
        stage = 1;
        this.push(buf);
      } else if (stage === 1) {
        stage = 2;
        handOff.then(
          () => this.push(null),
          (err: unknown) => this.destroy(err as Error),
        );
      }
    },
  });
}
