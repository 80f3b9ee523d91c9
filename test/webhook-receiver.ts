import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a {@link startReceiver} got. */
export interface ReceivedHook {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** When the body had arrived (ms since the epoch). */
  at: number;
  /** When the answer was sent (after the path's delay). */
  answeredAt?: number;
}

/**
 * A webhook receiver on 127.0.0.1 for tests and bench/webhooks.ts. Every request is recorded by path.
 * Paths: `/fail…` answers 500 always; `/flaky…` answers 500 to its first two requests, then 200;
 * `/busy…` answers 429; `/hold…` answers 200 only once `release()` is called; a path with
 * `slow-<ms>` in it answers 200 after that many milliseconds; any
 * other path 200 with a short body. `inFlight(path)` is how many requests to `path` await their
 * answer now, `maxInFlight(path)` the most there ever were at once.
 */
export async function startReceiver() {
  const received: ReceivedHook[] = [];
  const seen = new Map<string, number>();
  const open = new Map<string, number>();
  const most = new Map<string, number>();
  let held: Array<() => void> | null = [];
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
      const hook = received[received.length - 1];
      const n = (seen.get(path) ?? 0) + 1;
      seen.set(path, n);
      open.set(path, (open.get(path) ?? 0) + 1);
      most.set(path, Math.max(most.get(path) ?? 0, open.get(path)!));
      const answer = (status: number, body: string) => {
        open.set(path, open.get(path)! - 1);
        hook.answeredAt = Date.now();
        res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
      };
      if (path.startsWith('/fail') || (path.startsWith('/flaky') && n <= 2)) return answer(500, 'x'.repeat(5000));
      if (path.startsWith('/busy')) return answer(429, 'slow down');
      if (path.startsWith('/hold') && held) return void held.push(() => answer(200, 'ok'));
      const delay = /slow-(\d+)/.exec(path);
      if (delay) return void setTimeout(() => answer(200, 'ok'), Number(delay[1]));
      answer(200, 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    base: `http://127.0.0.1:${port}`,
    at: (path: string) => received.filter((r) => r.path === path),
    inFlight: (path: string) => open.get(path) ?? 0,
    /** Answers every held `/hold…` request, and those to come at once. */
    release: () => {
      const waiting = held ?? [];
      held = null;
      for (const answer of waiting) answer();
    },
    maxInFlight: (path: string) => most.get(path) ?? 0,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
