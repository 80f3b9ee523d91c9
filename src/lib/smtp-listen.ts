import type { SMTPServer, SMTPServerDataStream } from 'smtp-server';
import { inputBudget, type ByteBudget } from './byte-budget.js';

/** An error smtp-server turns into the reply `responseCode` + message. */
export type SmtpError = Error & { responseCode: number };

/**
 * `code` and `text` as the error smtp-server answers with (`text` starts with the enhanced status
 * code of RFC 3463, which smtp-server does not add itself).
 */
export function smtpError(code: number, text: string): SmtpError {
  // One line: a message could hold a CR/LF of the client's input.
  const err = new Error(text.replace(/[\r\n]+/g, ' ')) as SmtpError;
  err.responseCode = code;
  return err;
}

/**
 * Starts `server` (smtp-server) on `host:port` (0: any free port).
 * @returns the bound port, and `close()` that stops accepting and resolves once open sessions ended
 *   (smtp-server closes them with 421 after its `closeTimeout`).
 * @throws the listen error (EADDRINUSE, EACCES for a port under 1024 without the privilege).
 */
export async function listenSmtp(
  server: SMTPServer,
  port: number,
  host: string,
): Promise<{ port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.server.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What {@link readSmtpData} read. */
export type SmtpData =
  | { ok: true; raw: Buffer }
  /** Over `maxBytes` (or smtp-server's own SIZE check): smtp-server answers 552 with `rejectOversized`. */
  | { ok: false; reason: 'too-big' }
  /** The process's input budget was spent by other clients: answer 451 and let the client retry. */
  | { ok: false; reason: 'busy' };

/**
 * Reads a DATA stream whole, keeping at most `maxBytes`, each byte taken from `budget` (the process's
 * {@link inputBudget}) while it is held and given back once the promise settles. The rest of an
 * oversized stream, or of one the budget cannot hold, is drained, not kept.
 */
export function readSmtpData(
  stream: SMTPServerDataStream,
  maxBytes: number,
  budget: ByteBudget = inputBudget,
): Promise<SmtpData> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let taken = 0;
    let busy = false;
    const release = () => {
      budget.give(taken);
      taken = 0;
      chunks.length = 0;
    };
    stream.on('data', (c: Buffer) => {
      bytes += c.length;
      if (busy || bytes > maxBytes) return release();
      if (!budget.tryTake(c.length)) {
        busy = true;
        return release();
      }
      taken += c.length;
      chunks.push(c);
    });
    stream.on('error', (err) => {
      release();
      reject(err);
    });
    stream.on('end', () => {
      if (stream.sizeExceeded || bytes > maxBytes) {
        release();
        return resolve({ ok: false, reason: 'too-big' });
      }
      if (busy) return resolve({ ok: false, reason: 'busy' });
      const raw = Buffer.concat(chunks);
      release();
      resolve({ ok: true, raw });
    });
  });
}

/**
 * Reads a DATA stream keeping only its first `keepBytes`: the rest is counted and dropped as it
 * arrives, so a client sending megabytes costs `keepBytes` of memory at most.
 * @returns the kept head, the total size, and whether smtp-server's SIZE check was exceeded.
 */
export function readSmtpHead(
  stream: SMTPServerDataStream,
  keepBytes: number,
): Promise<{ head: Buffer; bytes: number; sizeExceeded: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let bytes = 0;
    stream.on('data', (c: Buffer) => {
      bytes += c.length;
      if (kept >= keepBytes) return;
      const part = c.length <= keepBytes - kept ? c : c.subarray(0, keepBytes - kept);
      // A copy of a cut chunk, so the rest of its buffer is not kept alive by the slice.
      chunks.push(part === c ? c : Buffer.from(part));
      kept += part.length;
    });
    stream.on('error', reject);
    stream.on('end', () => resolve({ head: Buffer.concat(chunks), bytes, sizeExceeded: Boolean(stream.sizeExceeded) }));
  });
}
