import { and, eq, gt, isNull } from 'drizzle-orm';
import { users, userTokens, type TokenKind } from '../db/schema.js';
import type { Db } from '../db/pool.js';
import { newId } from '../lib/ids.js';
import type { Tx } from '../db/tx.js';

export type UserRow = typeof users.$inferSelect;
/** The pool's handle or one of its transactions. */

export async function findUserByEmail(db: Tx, email: string): Promise<UserRow | undefined> {
  const [u] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return u;
}

export async function findUserById(db: Tx, id: string): Promise<UserRow | undefined> {
  const [u] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return u;
}

/** Inserts a user; returns undefined when the email is taken (unique index). */
export async function insertUser(db: Db, email: string, passwordHash: string, now: Date): Promise<UserRow | undefined> {
  const [u] = await db
    .insert(users)
    .values({ id: newId(), email, passwordHash, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning();
  return u;
}

export async function insertToken(
  db: Tx,
  userId: string,
  kind: TokenKind,
  tokenHash: string,
  expiresAt: Date,
): Promise<void> {
  await db.insert(userTokens).values({ id: newId(), userId, kind, tokenHash, expiresAt });
}

/** The user of a live, unused token, without using it; undefined when none matches. */
export async function findLiveToken(
  db: Tx,
  kind: TokenKind,
  tokenHash: string,
  now: Date,
): Promise<string | undefined> {
  const [row] = await db
    .select({ userId: userTokens.userId })
    .from(userTokens)
    .where(
      and(
        eq(userTokens.tokenHash, tokenHash),
        eq(userTokens.kind, kind),
        isNull(userTokens.usedAt),
        gt(userTokens.expiresAt, now),
      ),
    )
    .limit(1);
  return row?.userId;
}

/** Marks every unused token of `kind` of the user used (a reset spends the other reset links). */
export async function spendTokens(db: Tx, userId: string, kind: TokenKind, now: Date): Promise<void> {
  await db
    .update(userTokens)
    .set({ usedAt: now })
    .where(and(eq(userTokens.userId, userId), eq(userTokens.kind, kind), isNull(userTokens.usedAt)));
}

/** Marks a live, unused token used and returns its user id; undefined when none matches. */
export async function consumeToken(db: Tx, kind: TokenKind, tokenHash: string, now: Date): Promise<string | undefined> {
  const [row] = await db
    .update(userTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(userTokens.tokenHash, tokenHash),
        eq(userTokens.kind, kind),
        isNull(userTokens.usedAt),
        gt(userTokens.expiresAt, now),
      ),
    )
    .returning({ userId: userTokens.userId });
  return row?.userId;
}
