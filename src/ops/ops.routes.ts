import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { z } from 'zod';
import { pendingMigrations } from '../db/migrate.js';
import { AppError } from '../http/errors.js';
import { replies } from '../http/responses.js';
import type { Metrics } from './metrics.js';

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
const readyOut = z.object({
  ready: z.boolean(),
  checks: z.object({
    database: check.describe('a query answered'),
    migrations: check.describe('every migration of this version is applied'),
    worker: check.describe('the worker runs ("not run" when the role has none)'),
  }),
}).meta({ id: 'Readiness' });

/**
 * `GET /ready` (readiness: the database answers, this version's migrations are applied, the worker
 * runs when the role has one; 503 otherwise, with the same body) and `GET /metrics` (Prometheus text
 * format, optionally behind `METRICS_TOKEN`). `GET /health` (liveness) stays with the system routes,
 * and answers as long as the database does. Registered on the API and, for `PROCESS_ROLE=worker`, on
 * the worker's own small HTTP server (ops-server.ts).
 */
export async function opsRoutes(app: FastifyInstance, ctx: OpsContext): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get('/ready', {
    config: { auth: 'none' },
    schema: { tags: ['system'], summary: 'Readiness: database, migrations, worker', response: replies({ 200: readyOut, 503: readyOut }) },
  }, async (_req, reply) => {
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
    return reply.code(ready ? 200 : 503).send({ ready, checks });
  });

  r.get('/metrics', {
    config: { auth: 'none' },
    schema: {
      tags: ['system'], summary: 'Prometheus metrics of this process (Bearer METRICS_TOKEN when set)',
      response: replies({ 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: z.string() } } } }),
    },
  }, async (req, reply) => {
    if (ctx.metricsToken && !tokenMatches(req.headers.authorization, ctx.metricsToken)) {
      throw new AppError('UNAUTHORIZED', 'This endpoint wants Authorization: Bearer <METRICS_TOKEN>');
    }
    const body = await ctx.metrics.registry.metrics();
    return reply.header('Content-Type', ctx.metrics.registry.contentType).header('Cache-Control', 'no-store').send(body);
  });
}

/** Constant-time comparison of `Bearer <token>` with the configured token. */
function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}
