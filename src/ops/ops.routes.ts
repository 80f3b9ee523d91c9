import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../http/errors.js';
import { replies } from '../http/responses.js';
import { metricsAllowed, metricsRefusal, readiness, readyOut, type OpsContext } from './checks.js';

export type { OpsContext };

/**
 * `GET /ready` (readiness: the database answers, this version's migrations are applied, the worker
 * runs when the role has one; 503 otherwise, with the same body) and `GET /metrics` (Prometheus text
 * format, optionally behind `METRICS_TOKEN`). `GET /health` (liveness) stays with the system routes,
 * and answers as long as the database does. Registered on the API; a `PROCESS_ROLE=worker` process
 * serves the same answers (checks.ts) from its own small HTTP server (ops-server.ts).
 */
export async function opsRoutes(app: FastifyInstance, ctx: OpsContext): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/ready',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['system'],
        summary: 'Readiness: database, migrations, worker',
        response: replies({ 200: readyOut, 503: readyOut }),
      },
    },
    async (_req, reply) => {
      const { status, body } = await readiness(ctx);
      return reply.code(status).send(body);
    },
  );

  r.get(
    '/metrics',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['system'],
        summary: 'Prometheus metrics of this process (Bearer METRICS_TOKEN when set)',
        response: replies({
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: z.string() } },
          },
        }),
      },
    },
    async (req, reply) => {
      if (!metricsAllowed(ctx, req.headers.authorization, req.socket.remoteAddress))
        throw new AppError('UNAUTHORIZED', metricsRefusal(ctx));
      const body = await ctx.metrics.registry.metrics();
      return reply
        .header('Content-Type', ctx.metrics.registry.contentType)
        .header('Cache-Control', 'no-store')
        .send(body);
    },
  );
}
