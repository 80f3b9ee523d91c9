import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyInstance, type RouteOptions } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Deps } from './deps.js';
import { registerAuth } from './http/auth.js';
import { registerBodyBudget } from './http/body-budget.js';
import { registerCsrfGuard } from './http/csrf.js';
import { AppError } from './http/errors.js';
import { registerErrorHandler } from './http/error-handler.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerInputGuard } from './http/input-guard.js';
import { keyCacheFor } from './http/key-cache.js';
import { openApiDocument } from './http/openapi.js';
import { registerRateLimit } from './http/rate-limit.js';
import { strictSerializerCompiler } from './http/strict-serializer.js';
import { newId } from './lib/ids.js';
import { featureRoutes } from './routes.js';
import { useErasureSecret } from './suppressions/erased.js';
import { opsRoutes, type OpsContext } from './ops/ops.routes.js';
import { VERSION } from './system/system.routes.js';

/** Default request body limit; routes that take more (e.g. `/v1/send` attachments) set their own. */
export const DEFAULT_BODY_LIMIT = 2 * 1024 * 1024;

/**
 * Fastify's `trustProxy` for the `TRUST_PROXY` setting. A hop count `n` trusts the `n` addresses
 * nearest the socket, whatever they are (proxy-addr calls the function with each address and its
 * index, 0 being the socket's peer): Fastify itself fails a bare number closed, since a client that
 * reaches the server directly could then name itself, so the docs ask for a hop count only where
 * nothing but the proxies can reach the port.
 */
export function trustProxyOption(
  setting: boolean | number | string,
): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}

/** Options of {@link buildApp} for the test harness; the service itself passes none. */
export interface BuildOptions {
  /** Called with every route as it is registered (the contract suite enumerates routes with it). */
  onRoute?: (route: RouteOptions) => void;
  /**
   * Fail any answer its response schema would change (a key the schema lacks, a coerced value)
   * instead of serializing it as the schema says (http/strict-serializer.ts). For tests.
   */
  strictResponses?: boolean;
  /** What `/ready` checks besides the database (the worker of this process); default: the database only. */
  ops?: Pick<OpsContext, 'workerRunning'>;
}

/**
 * Builds the HTTP application over `deps`: plugins, authentication, rate limit, idempotency, the input
 * guard, the one error handler, and every feature's routes. Does not listen.
 */
export async function buildApp(deps: Deps, opts: BuildOptions = {}): Promise<FastifyInstance> {
  // The suppression check matches erased addresses by their keyed hash (suppressions/erased.ts).
  useErasureSecret(deps.secret);
  const serializer = opts.strictResponses ? strictSerializerCompiler : serializerCompiler;
  const app = Fastify({
    loggerInstance: deps.log,
    // Every schema is zod, compiled by the type provider's compilers. Given as the factories (Fastify's
    // types expect Ajv's there), they also keep Fastify from loading its default Ajv and
    // fast-json-stringify compilers, never used, for a few MB of heap.
    schemaController: {
      compilersFactory: {
        buildValidator: () => validatorCompiler as never,
        buildSerializer: () => serializer as never,
      },
    },
    // Per-request log lines only at debug/trace: at info they would double the cost of a hot path.
    logController: new LogController({
      disableRequestLogging: deps.config.LOG_LEVEL !== 'debug' && deps.config.LOG_LEVEL !== 'trace',
    }),
    genReqId: () => newId(),
    bodyLimit: DEFAULT_BODY_LIMIT,
    trustProxy: trustProxyOption(deps.config.TRUST_PROXY),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  }) as unknown as FastifyInstance;
  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);

  // Every response carries its request id (X-Request-ID equals error.requestId of an error), and over
  // https HSTS (RFC 6797), without includeSubDomains: other hosts of the domain may not serve https.
  const hsts = deps.config.PUBLIC_URL.startsWith('https:');
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-ID', req.id);
    if (hsts) reply.header('Strict-Transport-Security', 'max-age=31536000');
  });
  // Request durations by route pattern (never the raw URL: ids would make a series per resource).
  app.addHook('onResponse', async (req, reply) => {
    deps.metrics.httpDuration.observe(
      { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  // JSON bodies: an empty body is "no body" (POST …/cancel from fetch with a JSON content type),
  // anything unparseable is 400 BAD_REQUEST.
  const defaultJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  // No plain-text bodies: a cross-site form can send `text/plain` without a CORS preflight, JSON it
  // cannot. Such a body is 400 (error-handler.ts); SNS's `text/plain` JSON is relabelled by its route.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json(\s*;.*)?$/i, { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    defaultJson(req, body as string, (err, value) => {
      if (err) return done(new AppError('BAD_REQUEST', `Malformed JSON body: ${err.message}`), undefined);
      done(null, value);
    });
  });

  registerErrorHandler(app, () => deps.clock.now());
  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Pigeon API', version: VERSION, description: 'Plunk-compatible email delivery and audience API' },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'pk_ key for POST /v1/track, sk_ key for everything else; a scoped psk_ key for the routes of its scopes (docs/api-keys.md)',
          },
          session: { type: 'apiKey', in: 'cookie', name: 'session' },
        },
      },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: openApiDocument,
  });
  // The docs page and its assets need no credential.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config as object), auth: 'none' } as never;
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });

  registerCsrfGuard(app, () => deps.config.PUBLIC_URL);
  registerAuth(app, deps);
  const closeRateLimit = await registerRateLimit(app, deps);
  registerInputGuard(app);
  registerBodyBudget(app);
  registerIdempotency(app, deps);
  app.addHook('onClose', async () => closeRateLimit());
  app.addHook('onClose', async () => keyCacheFor(deps.pool).close());

  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
  await featureRoutes(app, deps);
  await app.register(async (scope) =>
    opsRoutes(scope, {
      metrics: deps.metrics,
      pool: deps.pool,
      metricsToken: deps.config.METRICS_TOKEN,
      ...opts.ops,
    }),
  );
  return app;
}
