import { and, eq, gt, lt, sql } from 'drizzle-orm';
import { authChallenges, type ChallengePurpose } from '../../db/schema.js';
import type { Tx } from '../../db/tx.js';
import { randomToken, sha256 } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';

/**
 * Single-use challenges of sign-in ceremonies (table `auth_challenges`): the client holds a random
 * token, only its SHA-256 is stored, and a challenge serves only the purpose it was made for, until it
 * expires or is used (then its row is deleted).
 */

/** A challenge row as read back. */
export type Challenge = typeof authChallenges.$inferSelect;

/**
 * Stores a new challenge. @param ttlMs its lifetime in milliseconds; `token` the client's secret when
 * the ceremony makes it (a WebAuthn challenge), else a new random one.
 * @returns the token for the client (43 base64url characters, 256 bits) and when it expires.
 */
export async function createChallenge(
  db: Tx,
  c: {
    purpose: ChallengePurpose;
    userId: string | null;
    data?: Record<string, unknown>;
    now: Date;
    ttlMs: number;
    token?: string;
  },
): Promise<{ token: string; expiresAt: Date }> {
  const token = c.token ?? randomToken();
  const expiresAt = new Date(c.now.getTime() + c.ttlMs);
  // Expired challenges of anyone go on the way: a few rows, the table stays small without a job.
  await db.delete(authChallenges).where(lt(authChallenges.expiresAt, c.now));
  await db.insert(authChallenges).values({
    id: newId(),
    userId: c.userId,
    purpose: c.purpose,
    secretHash: sha256(token),
    data: c.data ?? {},
    expiresAt,
    createdAt: c.now,
  });
  return { token, expiresAt };
}

/** The live challenge of `purpose` that `token` names, or undefined (unknown, other purpose, expired). */
export async function findChallenge(
  db: Tx,
  purpose: ChallengePurpose,
  token: string,
  now: Date,
): Promise<Challenge | undefined> {
  const [row] = await db
    .select()
    .from(authChallenges)
    .where(
      and(
        eq(authChallenges.secretHash, sha256(token)),
        eq(authChallenges.purpose, purpose),
        gt(authChallenges.expiresAt, now),
      ),
    )
    .limit(1);
  return row;
}

/** Deletes a challenge. @returns false when it was gone already (another request used it). */
export async function spendChallenge(db: Tx, id: string): Promise<boolean> {
  const rows = await db.delete(authChallenges).where(eq(authChallenges.id, id)).returning({ id: authChallenges.id });
  return rows.length === 1;
}

/**
 * Counts a wrong answer to a challenge, deleting it at the `max`-th.
 * @returns the attempts left (0: the challenge is gone).
 */
export async function failChallenge(db: Tx, id: string, max: number): Promise<number> {
  const [row] = await db
    .update(authChallenges)
    .set({ attempts: sql`${authChallenges.attempts} + 1` })
    .where(eq(authChallenges.id, id))
    .returning({ attempts: authChallenges.attempts });
  if (!row || row.attempts >= max) {
    await spendChallenge(db, id);
    return 0;
  }
  return max - row.attempts;
}
