import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { passkeys, sessions, users, type SignInMethod } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { SESSION_TTL_SECONDS } from '../http/session.js';
import { newId } from '../lib/ids.js';
import type { Tx } from '../db/tx.js';

/**
 * The dashboard's sessions, one row each (schema `sessions`): every rule of when a session lives is
 * here. A session is live while its row is not revoked, `expires_at` (7 days after sign-in) has not
 * passed, and it was used within the idle timeout (`SESSION_IDLE_TIMEOUT_HOURS`).
 */

/** How stale `last_seen_at` may get before a request moves it: a write per session every few minutes, not per request. */
export const LAST_SEEN_GRANULARITY_MS = 5 * 60_000;

/** Milliseconds without a request after which a session ends. */
export const idleTimeoutMs = (deps: Pick<Deps, 'config'>) => deps.config.SESSION_IDLE_TIMEOUT_HOURS * 3600_000;

/**
 * Opens a session for `userId`; returns its id for the cookie's JWT. `how` says how it signed in (a
 * project requiring two-factor sign-in turns away `password` sessions, http/auth.ts) and from which
 * client address, for the account's list of sessions.
 */
export async function openSession(
  db: Tx,
  userId: string,
  now: Date,
  userAgent?: string,
  how: { method?: SignInMethod; ip?: string | null } = {},
): Promise<string> {
  const id = newId();
  await db.insert(sessions).values({
    id,
    userId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + SESSION_TTL_SECONDS * 1000),
    userAgent: userAgent ? userAgent.slice(0, 300) : null,
    method: how.method ?? 'password',
    ip: how.ip ?? null,
  });
  return id;
}

/**
 * The SQL condition "the session row is live at `now`", for queries that read the row together with
 * others (http/auth.ts reads it with the user's membership in one round trip).
 */
export function liveSessionCondition(deps: Pick<Deps, 'config'>, now: Date) {
  return and(
    isNull(sessions.revokedAt),
    sql`${sessions.expiresAt} > ${now}`,
    sql`${sessions.lastSeenAt} > ${new Date(now.getTime() - idleTimeoutMs(deps))}`,
  );
}

/**
 * Moves a live session's `last_seen_at` to `now` when it is older than {@link LAST_SEEN_GRANULARITY_MS},
 * so its idle timeout slides with use. `lastSeenAt` is the value just read with the session.
 */
export async function touchSession(db: Tx, sessionId: string, lastSeenAt: Date, now: Date): Promise<void> {
  if (now.getTime() - lastSeenAt.getTime() < LAST_SEEN_GRANULARITY_MS) return;
  await db
    .update(sessions)
    .set({ lastSeenAt: now })
    .where(and(eq(sessions.id, sessionId), lt(sessions.lastSeenAt, now)));
}

/** Ends one session of `userId` (log out). Ending a session that is gone or already ended is no error. */
export async function revokeSession(db: Tx, userId: string, sessionId: string, now: Date): Promise<void> {
  await db
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), isNull(sessions.revokedAt)));
}

/** Ends every session of `userId` but `except` (log out everywhere, password reset, verification from another browser). */
export async function revokeAllSessions(db: Tx, userId: string, now: Date, except?: string): Promise<void> {
  await db
    .update(sessions)
    .set({ revokedAt: now })
    .where(
      and(
        eq(sessions.userId, userId),
        isNull(sessions.revokedAt),
        except ? sql`${sessions.id} <> ${except}` : undefined,
      ),
    );
}

/**
 * Deletes sessions that can never be live again: expired, revoked, or idle past the timeout, a day
 * after the fact (kept that long for a future "your sessions" list and for support).
 * @returns how many rows went.
 */
export async function purgeDeadSessions(deps: Pick<Deps, 'db' | 'config'>, now: Date): Promise<number> {
  const dayAgo = new Date(now.getTime() - 24 * 3600_000);
  const idleSince = new Date(dayAgo.getTime() - idleTimeoutMs(deps));
  const rows = await deps.db
    .delete(sessions)
    .where(or(lt(sessions.expiresAt, dayAgo), lt(sessions.revokedAt, dayAgo), lt(sessions.lastSeenAt, idleSince)))
    .returning({ id: sessions.id });
  return rows.length;
}

/** How session `sessionId` signed in (`password`, `totp`, …), or null when there is no such row. */
export async function sessionMethod(db: Tx, sessionId: string): Promise<SignInMethod | null> {
  const [row] = await db.select({ method: sessions.method }).from(sessions).where(eq(sessions.id, sessionId));
  return row?.method ?? null;
}

/**
 * Counts session `sessionId`, signed in with a password, as two-factor from now on: its person just
 * proved a second factor in it (confirming TOTP enrolment). Other methods are left as they are.
 */
export async function upgradeToTwoFactor(db: Tx, sessionId: string): Promise<void> {
  await db
    .update(sessions)
    .set({ method: 'totp' })
    .where(and(eq(sessions.id, sessionId), eq(sessions.method, 'password')));
}

/**
 * After a second factor was removed: when `userId` has none left (TOTP off, no passkey), the sessions
 * that signed in with one (`totp`, `recovery`, `passkey`) count as password sessions from now on, so a
 * project that requires two-factor sign-in turns them away as it would a new password sign-in, and the
 * sessions list says so. SSO sessions keep `oidc`: the provider's sign-in is what counts for them.
 */
export async function downgradeWithoutFactor(db: Tx, userId: string): Promise<void> {
  await db
    .update(sessions)
    .set({ method: 'password' })
    .where(
      and(
        eq(sessions.userId, userId),
        sql`${sessions.method} in ('totp', 'recovery', 'passkey')`,
        sql`not exists (select 1 from ${users} where ${users.id} = ${userId} and ${users.totpEnabledAt} is not null)`,
        sql`not exists (select 1 from ${passkeys} where ${passkeys.userId} = ${userId})`,
      ),
    );
}
