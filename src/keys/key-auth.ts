import { eq, sql } from 'drizzle-orm';
import ipaddr from 'ipaddr.js';
import { apiKeys, projects } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError } from '../http/errors.js';
import { keyCacheFor, type KeyProject, type ScopedKeyRecord } from '../http/key-cache.js';
import { sha256 } from '../lib/crypto.js';
import { scopeOfRoute } from './scopes.js';

/**
 * Authentication of scoped API keys (issue 39): the look-up (cached like the project keys, emptied
 * everywhere by the NOTIFY of migration 0036 when a key changes or is deleted), the checks of each
 * request (lifetime, client address, the route's scope) and the throttled record of last use.
 */

/** Every scoped key starts with this, so that the auth hook tells it from `pk_`/`sk_` without a look-up. */
export const SCOPED_KEY_PREFIX = 'psk_';

/** Last use is written at most this often per key (milliseconds). */
const LAST_USE_EVERY_MS = 60_000;
/** Keys whose last write this process remembers; beyond, the memory is emptied (the SQL guard stays). */
const LAST_USE_MEMORY = 10_000;

/**
 * The project and row of the scoped key `token`, or null for an unknown one. From the process's key
 * cache (http/key-cache.ts) or one indexed look-up by SHA-256 (`api_keys.key_hash` is unique).
 */
export async function scopedKeyByToken(deps: Deps, token: string): Promise<KeyProject | null> {
  const hash = sha256(token);
  return keyCacheFor(deps.pool).lookup(`scoped:${hash}`, async () => {
    const [row] = await deps.db
      .select({
        projectId: apiKeys.projectId,
        disabled: projects.disabled,
        id: apiKeys.id,
        name: apiKeys.name,
        scopes: apiKeys.scopes,
        allowedIps: apiKeys.allowedIps,
        expiresAt: apiKeys.expiresAt,
      })
      .from(apiKeys)
      .innerJoin(projects, eq(projects.id, apiKeys.projectId))
      .where(eq(apiKeys.keyHash, hash))
      .limit(1);
    if (!row) return null;
    const key: ScopedKeyRecord = {
      id: row.id,
      name: row.name,
      scopes: row.scopes,
      allowedIps: row.allowedIps?.length ? row.allowedIps : null,
      expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    };
    return { id: row.projectId, disabled: row.disabled, key };
  });
}

/** The address as ipaddr.js compares it: IPv4-mapped IPv6 (`::ffff:1.2.3.4`) unwrapped to IPv4. */
function parseAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    return ipaddr.process(ip);
  } catch {
    return null;
  }
}

/** Is `ip` inside one of `cidrs`? A CIDR of the other family never matches; an unparsable one neither. */
export function ipAllowed(ip: string, cidrs: readonly string[]): boolean {
  const addr = parseAddress(ip);
  if (!addr) return false;
  return cidrs.some((c) => {
    try {
      const [range, bits] = ipaddr.parseCIDR(c);
      return range.kind() === addr.kind() && addr.match([range, bits]);
    } catch {
      return false;
    }
  });
}

/**
 * Checks a scoped key for one request, before its body is read:
 * - expired (`expiresAt` ≤ now) → 401 INVALID_API_KEY saying so;
 * - `ip` (the client address, `req.ip`, which honours TRUST_PROXY) outside `allowedIps` → 403 FORBIDDEN;
 * - the route (`method` + `url` as Fastify registered it) not in the scope table → 403 FORBIDDEN;
 * - the route's scope not held → 403 FORBIDDEN `This key lacks the "<scope>" scope`, `details.scope`.
 * @throws AppError as above.
 */
export function checkScopedKey(key: ScopedKeyRecord, ip: string, method: string, url: string, now: Date): void {
  if (key.expiresAt !== null && key.expiresAt <= now.getTime()) {
    throw new AppError('INVALID_API_KEY', `This API key expired on ${new Date(key.expiresAt).toISOString()}`, {
      suggestion: 'Create a new key in the project settings.',
    });
  }
  if (key.allowedIps && !ipAllowed(ip, key.allowedIps)) {
    throw new AppError('FORBIDDEN', `This key may not be used from ${ip}`, {
      details: { ip },
      suggestion: "Call from one of the key's allowed addresses, or create a key that allows this one.",
    });
  }
  const scope = scopeOfRoute(method, url);
  if (!scope) {
    throw new AppError('FORBIDDEN', `Scoped API keys cannot call ${method} ${url}`, {
      details: { route: `${method} ${url}` },
      suggestion: "Use the project's secret key or a member's session for this endpoint.",
    });
  }
  if (!key.scopes.includes(scope)) {
    throw new AppError('FORBIDDEN', `This key lacks the "${scope}" scope`, {
      details: { scope },
      suggestion: `Create a key with the "${scope}" scope for this endpoint.`,
    });
  }
}

const lastWrites = new Map<string, number>();

/**
 * Records that key `keyId` was used, at most once a minute per key: this process remembers its last
 * write, and the statement itself skips a row written less than a minute ago (by any process), so
 * requests cost no write. Runs in the background; a failure is logged, never the request's.
 */
export function noteKeyUse(deps: Deps, keyId: string): void {
  const now = Date.now();
  const last = lastWrites.get(keyId);
  if (last !== undefined && now - last < LAST_USE_EVERY_MS) return;
  if (lastWrites.size >= LAST_USE_MEMORY) lastWrites.clear();
  lastWrites.set(keyId, now);
  deps.db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(
      sql`${apiKeys.id} = ${keyId} and (${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} < now() - interval '1 minute')`,
    )
    .catch((err: unknown) => deps.log.warn({ err, keyId }, 'scoped key: last use not recorded'));
}
