import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Deps } from '../deps.js';
import { sha256 } from '../lib/crypto.js';
import { AppError, rateLimited } from './errors.js';
import { LoginThrottle } from './login-throttle.js';

/** Window of the credential-endpoint throttles, in milliseconds. */
export const AUTH_WINDOW_MS = 15 * 60_000;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Throttle of a credential endpoint: the request counts against its client IP
     * (`AUTH_RATE_LIMIT_PER_IP` per {@link AUTH_WINDOW_MS}, one budget shared by every throttled
     * endpoint), before its body is validated. Failed logins are counted per account by the
     * {@link LoginThrottle} (`app.loginThrottle`), mails to one address by {@link accountMailQuota}.
     */
    throttle?: 'ip';
    /** Further budgets of the route, each counted under its own key ({@link Quota}). */
    quotas?: Quota[];
  }
  interface FastifyInstance {
    /** The per-account failed-login throttle, or null when `AUTH_RATE_LIMIT_PER_ACCOUNT` is 0. */
    loginThrottle: LoginThrottle | null;
  }
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/**
 * A budget of a route beyond the per-project limit: `max` requests per `windowMs` for each value of
 * `key` (null: not counted), answered 429 with Retry-After past it. Routes that share a quota's `name`
 * share its counters.
 */
export interface Quota {
  name: string;
  max: number;
  windowMs: number;
  key: (req: FastifyRequest) => string | null | undefined;
  /** Completes "Too many …", e.g. `invitations from this account`. */
  what: string;
}

/**
 * Account mails (verification, password reset, "someone tried to create an account") one address may
 * be sent per hour, whatever the number of client addresses asking: the routes that mail the `email`
 * of their body declare this quota.
 */
export const accountMailQuota: Quota = {
  name: 'account-mail',
  max: 5,
  windowMs: 3600_000,
  key: (req) => accountOf(req),
  what: 'mails to this address (each request sends one)',
};

/** The verdict of {@link projectRateCheck} for one unit of work. */
export interface ProjectRateVerdict {
  allowed: boolean;
  limit: number;
  retryAfterSeconds: number;
}

/**
 * Counts one unit of work against the project's `RATE_LIMIT_PER_MINUTE` budget, the very counter of
 * its API requests (the plugin's global store, in memory or in Redis): the SMTP submission server
 * counts each message as a request. Call after {@link registerRateLimit} ran on `app`.
 * @returns the checker, or null when the per-project limit is off (`RATE_LIMIT_PER_MINUTE=0`).
 */
export function projectRateCheck(
  app: FastifyInstance,
  deps: Deps,
): ((projectId: string) => Promise<ProjectRateVerdict>) | null {
  if (deps.config.RATE_LIMIT_PER_MINUTE === 0 || !app.hasDecorator('createRateLimit')) return null;
  // No options: the limiter of the global params and store, whose key is the request's project.
  const check = app.createRateLimit();
  return async (projectId) => {
    const req = {
      auth: { projectId, via: 'secret' },
      routeOptions: { config: {} },
      headers: {},
      ip: '',
    } as unknown as FastifyRequest;
    const r = await check(req);
    const exceeded = !r.isAllowed && r.isExceeded;
    return {
      allowed: !exceeded,
      limit: r.isAllowed ? 0 : r.max,
      retryAfterSeconds: r.isAllowed ? 0 : Math.max(1, r.ttlInSeconds),
    };
  };
}

/** The account a throttled request names: its body's `email`, normalised as the schema does. */
function accountOf(req: FastifyRequest): string | null {
  const email = (req.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' && email.trim() ? email.trim().toLowerCase() : null;
}

/**
 * The request limits, all through `@fastify/rate-limit` (counters in memory, or in Redis when
 * `REDIS_URL` is set so that API nodes share them; if Redis is down, requests are served):
 * - per project: `RATE_LIMIT_PER_MINUTE` across all endpoints,
 *   `RateLimit-*` headers, 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`; session requests without a
 *   project (`/users/@me*`, member routes) per user, with the same budget; requests without either
 *   (`/auth/*`, `/config`) are not counted. Runs at `preValidation`, after authentication resolved the
 *   project;
 * - the route's `config.quotas` ({@link Quota}), e.g. {@link accountMailQuota};
 * - per client IP on the routes with `config.throttle` (credential endpoints), counted over
 *   {@link AUTH_WINDOW_MS} before the body is validated, so malformed attempts count too;
 * - failed logins per account: `app.loginThrottle` ({@link LoginThrottle}), which the login route asks.
 * @returns a function that closes the Redis connection, if any.
 */
export async function registerRateLimit(app: FastifyInstance, deps: Deps): Promise<() => Promise<void>> {
  const {
    RATE_LIMIT_PER_MINUTE: max,
    AUTH_RATE_LIMIT_PER_IP: perIp,
    AUTH_RATE_LIMIT_PER_ACCOUNT: perAccount,
    FORM_RATE_LIMIT_PER_IP: formPerIp,
    FORM_RATE_LIMIT_PER_FORM: formPerForm,
  } = deps.config;
  // Hosted forms' limits are route quotas (forms/limits.ts): they need the plugin even with the rest off.
  if (max === 0 && perIp === 0 && perAccount === 0 && formPerIp === 0 && formPerForm === 0) {
    app.decorate('loginThrottle', null);
    return async () => undefined;
  }
  // ioredis is loaded only with REDIS_URL: most installs never need its memory.
  const redis: Redis | undefined = deps.config.REDIS_URL
    ? new (await import('ioredis')).Redis(deps.config.REDIS_URL, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: true,
        lazyConnect: false,
      })
    : undefined;
  redis?.on('error', (err) => deps.log.warn({ err }, 'rate-limit redis error'));
  app.decorate('loginThrottle', perAccount > 0 ? new LoginThrottle(perAccount, AUTH_WINDOW_MS, redis) : null);
  await app.register(rateLimit, {
    global: max > 0,
    hook: 'preValidation',
    max: max || 1,
    timeWindow: 60_000,
    enableDraftSpec: true,
    redis,
    nameSpace: 'pigeon-rl:',
    // If Redis is down, serve rather than fail every request.
    skipOnError: true,
    // A project's requests share its budget; session requests without a project (`/users/@me*`,
    // member routes) count against their user, never a project (spec decisions: session calls do not
    // count against a project's limit).
    keyGenerator: (req) => (req.auth?.projectId ? req.auth.projectId : `user:${req.auth?.userId}`),
    allowList: (req) => !req.auth?.projectId && !req.auth?.userId,
    errorResponseBuilder: (_req, ctx) =>
      new AppError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit of ${ctx.max} requests per minute exceeded, retry in ${ctx.after}`,
        {
          details: { limit: ctx.max, retryAfterSeconds: Math.ceil(ctx.ttl / 1000) },
          suggestion: 'Wait for the number of seconds in the Retry-After header.',
        },
      ),
  });

  // Checkers rather than route hooks: the plugin runs one of its hooks per request, and a credential
  // route needs two counters. Each limiter is created once, so all throttled routes share its budget.
  const limiter = (limit: number, key: (req: FastifyRequest) => string): Limiter | null =>
    limit > 0
      ? app.createRateLimit({ max: limit, timeWindow: AUTH_WINDOW_MS, keyGenerator: key, allowList: undefined })
      : null;
  const byIp = limiter(perIp, (req) => `auth-ip:${normalizeIP(req.ip)}`);
  // One limiter per quota name, made at its first use, so that routes naming it share its counters.
  // Keys are hashed: a Redis key names no address.
  const quotaLimiters = new Map<string, Limiter>();
  app.addHook('preValidation', async (req) => {
    for (const q of req.routeOptions.config?.quotas ?? []) {
      const key = q.key(req);
      if (!key) continue;
      let check = quotaLimiters.get(q.name);
      if (!check) {
        check = app.createRateLimit({
          max: q.max,
          timeWindow: q.windowMs,
          keyGenerator: (r) => `quota:${q.name}:${sha256(q.key(r) ?? '')}`,
          allowList: undefined,
        });
        quotaLimiters.set(q.name, check);
      }
      const r = await check(req);
      if (!r.isAllowed && r.isExceeded)
        throw rateLimited(`Too many ${q.what}; retry in {seconds} s`, {
          retryAfterMs: r.ttl,
          limit: q.max,
          windowMs: q.windowMs,
        });
    }
  });
  app.addHook('preValidation', async (req) => {
    if (!byIp || !req.routeOptions.config?.throttle) return;
    const r = await byIp(req);
    if (!r.isAllowed && r.isExceeded)
      throw rateLimited('Too many attempts from this address; retry in {seconds} s', {
        retryAfterMs: r.ttl,
        limit: r.max,
        windowMs: AUTH_WINDOW_MS,
      });
  });
  return async () => {
    await redis?.quit().catch(() => undefined);
  };
}
