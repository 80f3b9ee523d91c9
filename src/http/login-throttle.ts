import type { Redis } from 'ioredis';
import { sha256 } from '../lib/crypto.js';
import { rateLimited } from './errors.js';

/** Longest back-off of an account under attack. */
const MAX_BACKOFF_MS = 24 * 3600_000;
/** Accounts the in-memory store remembers at most; past it, expired entries go, then the oldest. */
const MAX_MEMORY_ENTRIES = 100_000;

/** Failed logins of one account and how long they are remembered. */
interface Failures {
  count: number;
  /** Milliseconds until the count is forgotten (and a block lifted). */
  ttlMs: number;
}

/** Where failure counts live: this process's memory, or Redis shared by every API process. */
interface FailureStore {
  read(key: string): Promise<Failures | null>;
  /** Adds one failure and sets the count's lifetime to `ttlFor(new count)`. */
  add(key: string, ttlFor: (count: number) => number): Promise<Failures>;
  clear(key: string): Promise<void>;
}

function memoryStore(now: () => number): FailureStore {
  const entries = new Map<string, { count: number; until: number }>();
  const live = (key: string) => {
    const e = entries.get(key);
    if (e && e.until <= now()) entries.delete(key);
    return e && e.until > now() ? e : null;
  };
  return {
    async read(key) {
      const e = live(key);
      return e ? { count: e.count, ttlMs: e.until - now() } : null;
    },
    async add(key, ttlFor) {
      const count = (live(key)?.count ?? 0) + 1;
      entries.delete(key); // re-inserted last: the Map's order is the eviction order
      if (entries.size >= MAX_MEMORY_ENTRIES) {
        for (const [k, v] of entries) if (v.until <= now()) entries.delete(k);
        for (const k of entries.keys()) {
          if (entries.size < MAX_MEMORY_ENTRIES) break;
          entries.delete(k);
        }
      }
      const ttlMs = ttlFor(count);
      entries.set(key, { count, until: now() + ttlMs });
      return { count, ttlMs };
    },
    async clear(key) {
      entries.delete(key);
    },
  };
}

function redisStore(redis: Redis): FailureStore {
  return {
    async read(key) {
      const [[, count], [, ttl]] = (await redis.multi().get(key).pttl(key).exec()) as [
        [unknown, string | null],
        [unknown, number],
      ];
      return count && ttl > 0 ? { count: Number(count), ttlMs: ttl } : null;
    },
    async add(key, ttlFor) {
      const count = await redis.incr(key);
      const ttlMs = ttlFor(count);
      await redis.pexpire(key, ttlMs);
      return { count, ttlMs };
    },
    async clear(key) {
      await redis.del(key);
    },
  };
}

/**
 * The per-account login throttle: failed logins of an account (by its address, from any client
 * address) are counted, successes are not. After `limit` failures within 15 minutes the account's
 * logins answer 429 for 15 minutes, and each further `limit` failures double that (at most 24 hours),
 * so a guesser's pace halves again and again. The account's owner is not locked out: a login from a
 * device that signed in to the account before (its device cookie, users/device.ts) is let through to
 * the password check whatever the count, and a password reset is never blocked by it. A success
 * forgets the count.
 */
export class LoginThrottle {
  private readonly store: FailureStore;

  /**
   * @param limit failures per window (`AUTH_RATE_LIMIT_PER_ACCOUNT`); `windowMs` the window (15 minutes);
   *   `redis` to share counts between API processes.
   */
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    redis?: Redis,
    now: () => number = Date.now,
  ) {
    this.store = redis ? redisStore(redis) : memoryStore(now);
  }

  private key = (email: string) => `pigeon-login-fail:${sha256(email)}`;

  /** How long `count` failures are remembered: the window, then doubling per `limit` more. */
  private ttlFor = (count: number): number => {
    const level = Math.floor(count / this.limit);
    return level < 1 ? this.windowMs : Math.min(this.windowMs * 2 ** (level - 1), MAX_BACKOFF_MS);
  };

  /**
   * Before the password of `email` is checked.
   * @throws AppError 429 RATE_LIMIT_EXCEEDED (with Retry-After) while the account is throttled and the
   *   request does not come from a device that signed in to it before; the refused attempt counts as
   *   a failure.
   */
  async before(email: string, knownDevice: boolean): Promise<void> {
    const f = await this.store.read(this.key(email));
    if (!f || f.count < this.limit || knownDevice) return;
    const after = await this.store.add(this.key(email), this.ttlFor);
    throw rateLimited('Too many failed sign-ins for this account; retry in {seconds} s, or reset the password', {
      retryAfterMs: after.ttlMs,
      limit: this.limit,
      windowMs: this.windowMs,
      suggestion:
        'Wait for the number of seconds in the Retry-After header, sign in from a device you used before, or reset the password by mail.',
    });
  }

  /** After a wrong password (or an unknown address, counted the same). */
  async failed(email: string): Promise<void> {
    await this.store.add(this.key(email), this.ttlFor);
  }

  /** After a correct password: the account's count is forgotten. */
  async succeeded(email: string): Promise<void> {
    await this.store.clear(this.key(email));
  }
}
