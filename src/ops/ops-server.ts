import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { registerErrorHandler } from '../http/error-handler.js';
import { opsRoutes, type OpsContext } from './ops.routes.js';

/**
 * The HTTP server of a `PROCESS_ROLE=worker` process, which serves no API: only `GET /health`
 * (liveness: the process answers and reaches the database), `GET /ready` and `GET /metrics`, so
 * that an orchestrator can probe a worker and Prometheus can scrape its job and SMTP metrics. It
 * listens on the process's `PORT`/`HOST`; every other path is 404 in the error envelope.
 */
export async function startOpsServer(ctx: OpsContext, listen: { port: number; host: string }, log: Logger, now: () => Date): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: log, logController: new LogController({ disableRequestLogging: true }) }) as unknown as FastifyInstance;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app, now);
  app.get('/health', async () => {
    await ctx.pool.query('select 1');
    return { ok: true };
  });
  await app.register(async (scope) => opsRoutes(scope, ctx));
  await app.listen(listen);
  return app;
}
