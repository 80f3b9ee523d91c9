import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Deps } from '../deps.js';
import { AppError } from './errors.js';

/**
 * The per-project request limit (api.md §8, decisions.md: limits): `RATE_LIMIT_PER_MINUTE` per project
 * across all endpoints, `RateLimit-*` headers, 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`.
 * Counters live in memory, or in Redis when `REDIS_URL` is set so that API nodes share them.
 * Requests without a project (`/auth/*`, `/users/@me*`, `/config`) are not counted.
 * Runs at `preValidation`, after authentication resolved the project.
 * @returns a function that closes the Redis connection, if any.
 */
export async function registerRateLimit(app: FastifyInstance, deps: Deps): Promise<() => Promise<void>> {
  const max = deps.config.RATE_LIMIT_PER_MINUTE;
  if (max === 0) return async () => undefined;
  const redis = deps.config.REDIS_URL
    ? new Redis(deps.config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false })
    : undefined;
  redis?.on('error', (err) => deps.log.warn({ err }, 'rate-limit redis error'));
  await app.register(rateLimit, {
    global: true,
    hook: 'preValidation',
    max,
    timeWindow: 60_000,
    enableDraftSpec: true,
    redis,
    nameSpace: 'pigeon-rl:',
    // If Redis is down, serve rather than fail every request.
    skipOnError: true,
    keyGenerator: (req) => req.auth?.projectId ?? 'none',
    allowList: (req) => !req.auth?.projectId,
    errorResponseBuilder: (_req, ctx) =>
      new AppError('RATE_LIMIT_EXCEEDED', `Rate limit of ${ctx.max} requests per minute exceeded, retry in ${ctx.after}`, {
        details: { limit: ctx.max, retryAfterSeconds: Math.ceil(ctx.ttl / 1000) },
        suggestion: 'Wait for the number of seconds in the Retry-After header.',
      }),
  });
  return async () => {
    await redis?.quit().catch(() => undefined);
  };
}
