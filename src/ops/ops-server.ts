import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { http } from '../lib/node-http.js';
import type { Logger } from 'pino';
import { AppError, errorBody } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { metricsAllowed, metricsRefusal, readiness, type OpsContext } from './checks.js';

/** The worker's operations server: close it to stop listening. */
export interface OpsServer {
  /** The port it listens on (the one asked for, or the one the system chose for 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * The HTTP server of a `PROCESS_ROLE=worker` process, which serves no API: only `GET /health`
 * (liveness: the process answers and reaches the database; `{ok: true}`), `GET /ready` (200 or 503
 * with the readiness checks) and `GET /metrics` (Prometheus text, behind `METRICS_TOKEN` when set),
 * so that an orchestrator can probe a worker and Prometheus can scrape its job and SMTP metrics.
 * `HEAD` answers as `GET` without a body. Every other path or method is 404 in the service's error
 * envelope, as on the API. It is node's own `http` server rather than Fastify: three fixed routes do
 * not need a router, and a worker process that never loads Fastify is smaller (bench/startup.ts).
 * It listens on the process's `PORT`/`HOST`. @throws the listen error (e.g. EADDRINUSE).
 */
export async function startOpsServer(
  ctx: OpsContext,
  listen: { port: number; host: string },
  log: Logger,
  now: () => Date,
): Promise<OpsServer> {
  const server: Server = http.createServer((req, res) => {
    handle(ctx, req, res, now).catch((err) => {
      log.error({ err, url: req.url }, 'operations endpoint failed');
      if (!res.headersSent) send(res, req, errorJson(new AppError('INTERNAL_SERVER_ERROR', 'Unexpected error'), now));
      else res.destroy();
    });
  });
  // An orchestrator probing every few seconds keeps its connection; no idle socket outlives close().
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Reply = { status: number; type: string; body: string; headers?: Record<string, string> };

const json = (status: number, value: unknown): Reply => ({
  status,
  type: 'application/json; charset=utf-8',
  body: JSON.stringify(value),
});
const errorJson = (err: AppError, now: () => Date): Reply => json(err.status, errorBody(err, newId(), now()));

async function handle(ctx: OpsContext, req: IncomingMessage, res: ServerResponse, now: () => Date): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  // Only GET (and HEAD) routes exist: any other method is a route that is not there, 404 as on the API.
  const route = req.method === 'GET' || req.method === 'HEAD' ? ROUTES[path] : undefined;
  if (!route)
    return send(res, req, errorJson(new AppError('RESOURCE_NOT_FOUND', `Route ${req.method} ${path} not found`), now));
  send(res, req, await route(ctx, req, now));
}

const ROUTES: Record<string, (ctx: OpsContext, req: IncomingMessage, now: () => Date) => Promise<Reply>> = {
  '/health': async (ctx) => {
    await ctx.pool.query('select 1');
    return json(200, { ok: true });
  },
  '/ready': async (ctx) => {
    const { status, body } = await readiness(ctx);
    return json(status, body);
  },
  '/metrics': async (ctx, req, now) => {
    if (!metricsAllowed(ctx, req.headers.authorization, req.socket.remoteAddress))
      return errorJson(new AppError('UNAUTHORIZED', metricsRefusal(ctx)), now);
    return {
      status: 200,
      type: ctx.metrics.registry.contentType,
      body: await ctx.metrics.registry.metrics(),
      headers: { 'cache-control': 'no-store' },
    };
  },
};

function send(res: ServerResponse, req: IncomingMessage, reply: Reply): void {
  res.writeHead(reply.status, {
    'content-type': reply.type,
    'content-length': Buffer.byteLength(reply.body),
    ...reply.headers,
  });
  res.end(req.method === 'HEAD' ? undefined : reply.body);
}
