import { and, eq, lt, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { idempotencyKeys } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, invalid } from './errors.js';

const KEY_FORMAT = /^[\x20-\x7E]{1,255}$/;

declare module 'fastify' {
  interface FastifyRequest {
    /** The claimed Idempotency-Key, set by the preHandler hook when the route is idempotent. */
    idempotencyKey?: string;
  }
}

/**
 * Claims `key` for `projectId` before the work. The unique
 * (project, key) primary key settles races: of N concurrent claims exactly one inserts.
 * An expired claim is replaced.
 * @throws AppError 409 `IDEMPOTENCY_KEY_REUSED` with `details` (the original request) when the key is taken.
 */
export async function claimIdempotencyKey(
  deps: Deps,
  projectId: string,
  key: string,
  method: string,
  path: string,
): Promise<void> {
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.config.IDEMPOTENCY_KEY_TTL_HOURS * 3600_000);
  for (let attempt = 0; attempt < 2; attempt++) {
    const inserted = await deps.db
      .insert(idempotencyKeys)
      .values({ projectId, key, method, path, createdAt: now, expiresAt })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length) return;
    const [existing] = await deps.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.projectId, projectId), eq(idempotencyKeys.key, key)));
    if (!existing) continue; // released between our insert and select: claim again
    if (existing.expiresAt <= now) {
      await deps.db
        .delete(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.projectId, projectId),
            eq(idempotencyKeys.key, key),
            lt(idempotencyKeys.expiresAt, sql`${now.toISOString()}::timestamptz + interval '1 millisecond'`),
          ),
        );
      continue;
    }
    throw new AppError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used; the request was not performed again',
      {
        details: {
          key,
          originalRequest: { method: existing.method, path: existing.path },
          originalRequestAt: existing.createdAt.toISOString(),
          // null while the original request is still being processed.
          originalStatusCode: existing.statusCode,
        },
        suggestion: 'Use a new Idempotency-Key for a new request.',
      },
    );
  }
  throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key is being claimed concurrently', {
    details: { key },
  });
}

/**
 * Claims `key` for `projectId` inside `tx`, the transaction that then does the work, so the claim
 * commits with the work or not at all (a crash before the commit leaves the key free for the retry).
 * A concurrent claim of the same key waits on the primary key until this transaction ends. An expired
 * claim is taken over. The SMTP submission server uses it with the submitted Message-ID.
 * @returns false when the key is already taken (the work was done, or is being done, before).
 */
export async function claimIdempotencyKeyIn(
  tx: Pick<Deps['db'], 'execute'>,
  deps: Pick<Deps, 'clock' | 'config'>,
  projectId: string,
  key: string,
  method: string,
  path: string,
  statusCode: number,
): Promise<boolean> {
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.config.IDEMPOTENCY_KEY_TTL_HOURS * 3600_000);
  const r =
    await tx.execute(sql`insert into idempotency_keys (project_id, key, method, path, status_code, created_at, expires_at)
    values (${projectId}, ${key}, ${method}, ${path}, ${statusCode}, ${now.toISOString()}::timestamptz, ${expiresAt.toISOString()}::timestamptz)
    on conflict (project_id, key) do update set method = excluded.method, path = excluded.path, status_code = excluded.status_code,
      created_at = excluded.created_at, expires_at = excluded.expires_at
    where idempotency_keys.expires_at <= excluded.created_at
    returning key`);
  return r.rows.length > 0;
}

/** Records the outcome of a claimed key: 4xx releases it, 2xx/5xx keep it with its status. */
export async function settleIdempotencyKey(deps: Deps, projectId: string, key: string, status: number): Promise<void> {
  const where = and(eq(idempotencyKeys.projectId, projectId), eq(idempotencyKeys.key, key));
  if (status >= 400 && status < 500) await deps.db.delete(idempotencyKeys).where(where);
  else await deps.db.update(idempotencyKeys).set({ statusCode: status }).where(where);
}

/** Deletes expired keys; run hourly by the worker's crontab. @returns the number deleted. */
export async function purgeExpiredIdempotencyKeys(deps: Pick<Deps, 'db' | 'clock'>): Promise<number> {
  const rows = await deps.db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.expiresAt, deps.clock.now()))
    .returning({ key: idempotencyKeys.key });
  return rows.length;
}

/**
 * Makes routes with `config.idempotent` honour the `Idempotency-Key` header: claim at preHandler
 * (after authentication and validation), settle in onSend, before the reply leaves, so a client that
 * retries after a 4xx finds the key free.
 */
export function registerIdempotency(app: FastifyInstance, deps: Deps): void {
  app.addHook('preHandler', async (req: FastifyRequest) => {
    if (!req.routeOptions.config?.idempotent) return;
    const raw = req.headers['idempotency-key'];
    if (raw === undefined) return;
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!KEY_FORMAT.test(key)) {
      throw invalid('Idempotency-Key', 'Idempotency-Key must be 1-255 printable ASCII characters', 'invalid_string');
    }
    const projectId = req.auth.projectId!;
    await claimIdempotencyKey(deps, projectId, key, req.method, req.url.split('?')[0]);
    req.idempotencyKey = key;
  });
  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload) => {
    if (req.idempotencyKey && req.auth?.projectId) {
      const key = req.idempotencyKey;
      req.idempotencyKey = undefined;
      await settleIdempotencyKey(deps, req.auth.projectId, key, reply.statusCode);
    }
    return payload;
  });
}
