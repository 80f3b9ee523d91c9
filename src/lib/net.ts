import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that is free right now (the OS picks it; the probe socket is closed before
 * returning, so another process could still take it: callers that bind must handle EADDRINUSE).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
