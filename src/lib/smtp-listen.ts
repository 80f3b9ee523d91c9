import type { SMTPServer, SMTPServerDataStream } from 'smtp-server';

/**
 * Starts `server` (smtp-server) on `host:port` (0: any free port).
 * @returns the bound port, and `close()` that stops accepting and resolves once open sessions ended
 *   (smtp-server closes them with 421 after its `closeTimeout`).
 * @throws the listen error (EADDRINUSE, EACCES for a port under 1024 without the privilege).
 */
export async function listenSmtp(server: SMTPServer, port: number, host: string): Promise<{ port: number; close(): Promise<void> }> {
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

/**
 * Reads a DATA stream whole, keeping at most `maxBytes` in memory.
 * @returns the message, or null when it went over `maxBytes` (or smtp-server's own SIZE check);
 *   the rest of an oversized stream is drained, not kept.
 */
export function readSmtpData(stream: SMTPServerDataStream, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    stream.on('data', (c: Buffer) => {
      bytes += c.length;
      if (bytes <= maxBytes) chunks.push(c);
    });
    stream.on('error', reject);
    stream.on('end', () => resolve(stream.sizeExceeded || bytes > maxBytes ? null : Buffer.concat(chunks)));
  });
}
