import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a {@link startReceiver} got. */
export interface ReceivedHook {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * A webhook receiver on 127.0.0.1 for tests and bench/webhooks.ts. Every request is recorded by path.
 * Paths: `/fail…` answers 500 always; `/flaky…` answers 500 to its first two requests, then 200; any
 * other path 200 with a short body.
 */
export async function startReceiver() {
  const received: ReceivedHook[] = [];
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({
        path,
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const n = (seen.get(path) ?? 0) + 1;
      seen.set(path, n);
      if (path.startsWith('/fail') || (path.startsWith('/flaky') && n <= 2))
        return res.writeHead(500).end('x'.repeat(5000));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    base: `http://127.0.0.1:${port}`,
    at: (path: string) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
