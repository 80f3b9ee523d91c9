import { timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { z } from 'zod';
import { pendingMigrations } from '../db/migrate.js';
import type { Metrics } from './metrics.js';

/**
 * What the operations endpoints (`GET /health`, `/ready`, `/metrics`) compute, shared by the API's
 * Fastify routes (ops.routes.ts) and the worker process's plain HTTP server (ops-server.ts), which
 * does not load Fastify.
 */

/** What the operations endpoints of a process look at. */
export interface OpsContext {
  metrics: Metrics;
  /** A pool of this process: `/ready` checks the database and the migrations through it. */
  pool: pg.Pool;
  /** Set when this process's role runs the worker: whether it is running (started, not stopping). */
  workerRunning?: () => boolean;
  /** `METRICS_TOKEN`: when set, `/metrics` wants `Authorization: Bearer <token>`. */
  metricsToken?: string;
}

const check = z.enum(['ok', 'failed', 'not run']);

/** The body of `GET /ready`, on 200 and on 503 alike. */
export const readyOut = z
  .object({
    ready: z.boolean(),
    checks: z.object({
      database: check.describe('a query answered'),
      migrations: check.describe('every migration of this version is applied'),
      worker: check.describe('the worker runs ("not run" when the role has none)'),
    }),
  })
  .meta({ id: 'Readiness' });

/**
 * Readiness: the database answers, this version's migrations are applied, and the worker runs when
 * the role has one. @returns 200 when no check failed, else 503, with the body of {@link readyOut}.
 * Never throws: a database error is the `database` (or `migrations`) check failing.
 */
export async function readiness(ctx: OpsContext): Promise<{ status: 200 | 503; body: z.infer<typeof readyOut> }> {
  const checks = { database: 'failed', migrations: 'failed', worker: 'not run' } as z.infer<typeof readyOut>['checks'];
  try {
    await ctx.pool.query('select 1');
    checks.database = 'ok';
    checks.migrations = (await pendingMigrations(ctx.pool)) === 0 ? 'ok' : 'failed';
  } catch {
    /* reported as failed */
  }
  if (ctx.workerRunning) checks.worker = ctx.workerRunning() ? 'ok' : 'failed';
  const ready = Object.values(checks).every((c) => c !== 'failed');
  return { status: ready ? 200 : 503, body: { ready, checks } };
}

/** Whether `address` (a socket's peer) is a loopback address: 127.0.0.0/8, ::1, or IPv4-mapped 127/8. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || /^(::ffff:)?127\./i.test(address);
}

/**
 * Whether a request may read `/metrics`: with `METRICS_TOKEN` set, only `Bearer <token>` with that
 * token (compared in constant time); without it, only a client on this machine (`peer`, the socket's
 * remote address, never a forwarded one), so that a fresh install does not publish its figures.
 */
export function metricsAllowed(ctx: OpsContext, header: string | undefined, peer: string | undefined): boolean {
  if (!ctx.metricsToken) return isLoopback(peer);
  const given = Buffer.from(/^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '');
  const want = Buffer.from(ctx.metricsToken);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** The message of the 401 of `/metrics` without the right token, or from another machine without one set. */
export const metricsRefusal = (ctx: OpsContext) =>
  ctx.metricsToken
    ? 'This endpoint wants Authorization: Bearer <METRICS_TOKEN>'
    : 'Metrics are served to this machine only: set METRICS_TOKEN to read them from elsewhere';
