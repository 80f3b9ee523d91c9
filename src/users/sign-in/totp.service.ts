import { and, eq, isNull } from 'drizzle-orm';
import { recoveryCodes, users } from '../../db/schema.js';
import { downgradeWithoutFactor, upgradeToTwoFactor } from '../sessions.js';
import type { Deps } from '../../deps.js';
import { AppError, invalid } from '../../http/errors.js';
import {
  matchStep,
  newTotpSecret,
  openTotpSecret,
  replaceRecoveryCodes,
  sealTotpSecret,
  spendRecoveryCode,
  spendTotpCode,
  totpUri,
} from './totp.js';
import { me } from '../users.service.js';

/**
 * Enrolment in TOTP two-factor sign-in and its life: start (a new secret, not yet in force), confirm
 * with a first code (in force, ten recovery codes), new recovery codes, disable. Every change that
 * needs proof takes a current code or a recovery code.
 */

type D = Deps;

const wrongCode = () =>
  invalid('code', 'That code is not right, or it was used already; enter the current code from your app', 'wrong_code');

/**
 * Starts (or restarts) enrolment: stores a new sealed secret with `totp_enabled_at` null, so it is not
 * asked at sign-in until confirmed.
 * @returns the base32 secret and its `otpauth://` URI (for the QR code).
 * @throws AppError 409 CONFLICT when two-factor sign-in is on already (disable it first).
 */
export async function startTotp(deps: D, userId: string): Promise<{ secret: string; uri: string }> {
  const user = await me(deps, userId);
  if (user.totpEnabledAt) throw new AppError('CONFLICT', 'Two-factor sign-in is on already; turn it off first');
  const secret = newTotpSecret();
  await deps.db
    .update(users)
    .set({ totpSecret: sealTotpSecret(deps, userId, secret), totpLastStep: null, updatedAt: deps.clock.now() })
    .where(and(eq(users.id, userId), isNull(users.totpEnabledAt)));
  return { secret, uri: totpUri(secret, user.email) };
}

/**
 * Confirms enrolment with a code of the new secret: turns two-factor sign-in on, makes ten recovery
 * codes and counts the caller's session `sessionId` as two-factor from now on.
 * @returns the recovery codes, shown this once.
 * @throws AppError 409 CONFLICT when on already or not started; 422 (field `code`) for a wrong code.
 */
export async function confirmTotp(deps: D, userId: string, sessionId: string, code: string): Promise<string[]> {
  const user = await me(deps, userId);
  if (user.totpEnabledAt) throw new AppError('CONFLICT', 'Two-factor sign-in is on already');
  if (!user.totpSecret) throw new AppError('CONFLICT', 'Start the set-up first: no secret was made yet');
  const now = deps.clock.now();
  const step = matchStep(openTotpSecret(deps, userId, user.totpSecret), code, now);
  if (step === null) throw wrongCode();
  return deps.db.transaction(async (tx) => {
    const done = await tx
      .update(users)
      .set({ totpEnabledAt: now, totpLastStep: step, updatedAt: now })
      .where(and(eq(users.id, userId), isNull(users.totpEnabledAt), eq(users.totpSecret, user.totpSecret!)))
      .returning({ id: users.id });
    if (!done.length) throw new AppError('CONFLICT', 'The set-up changed meanwhile; start again');
    await upgradeToTwoFactor(tx, sessionId);
    return replaceRecoveryCodes(tx, userId, now);
  });
}

/** Checks a current TOTP code or, failing that, an unused recovery code (spending it). */
async function proveFactor(deps: D, userId: string, code: string): Promise<void> {
  const user = await me(deps, userId);
  if (!user.totpEnabledAt || !user.totpSecret) throw new AppError('CONFLICT', 'Two-factor sign-in is off');
  if (await spendTotpCode(deps, deps.db, userId, user.totpSecret, code)) return;
  if (await spendRecoveryCode(deps.db, userId, code, deps.clock.now())) return;
  throw wrongCode();
}

/**
 * Turns two-factor sign-in off, given a current code or a recovery code; deletes the secret and the
 * recovery codes. Passkeys stay (they remain a second step of a password sign-in); without one, the
 * account's two-factor sessions count as password sessions from now on (sessions.ts).
 * @throws AppError 409 CONFLICT when off; 422 (field `code`) for a wrong code.
 */
export async function disableTotp(deps: D, userId: string, code: string): Promise<void> {
  await proveFactor(deps, userId, code);
  await deps.db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ totpSecret: null, totpEnabledAt: null, totpLastStep: null, updatedAt: deps.clock.now() })
      .where(eq(users.id, userId));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await downgradeWithoutFactor(tx, userId);
  });
}

/**
 * Replaces the recovery codes, given a current code or a recovery code.
 * @returns the new codes, shown this once. @throws as {@link disableTotp}.
 */
export async function regenerateRecoveryCodes(deps: D, userId: string, code: string): Promise<string[]> {
  await proveFactor(deps, userId, code);
  return deps.db.transaction((tx) => replaceRecoveryCodes(tx, userId, deps.clock.now()));
}

/** Whether `userId` has two-factor sign-in on, and how many unused recovery codes are left. */
export async function totpStatus(deps: Pick<Deps, 'db'>, userId: string) {
  const [u] = await deps.db.select({ on: users.totpEnabledAt }).from(users).where(eq(users.id, userId));
  const left = await deps.db
    .select({ id: recoveryCodes.id })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  return { enabled: Boolean(u?.on), enabledAt: u?.on?.toISOString() ?? null, recoveryCodesLeft: left.length };
}
