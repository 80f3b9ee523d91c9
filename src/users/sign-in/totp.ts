import { and, eq, isNull, lt, or } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { recoveryCodes, users } from '../../db/schema.js';
import type { Tx } from '../../db/tx.js';
import type { Deps } from '../../deps.js';
import { randomBytes } from 'node:crypto';
import { sha256 } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { keyring, resealColumn, secretPlaces, type ResealCount } from '../../lib/secret-places.js';
import { openSecret, sealSecret } from '../../lib/secrets.js';

/**
 * TOTP two-factor sign-in (RFC 6238): SHA-1, 6 digits, 30-second steps, the authenticator apps'
 * defaults. The shared secret is stored sealed (lib/secrets.ts, place `users.totp_secret:<user id>`);
 * a code is accepted one step either side of now (clock drift, RFC 6238 §5.2) and only once: the step
 * it matched is stored in `users.totp_last_step`, and a code of that step or an earlier one is refused.
 */

/** Seconds per time step. */
export const TOTP_PERIOD = 30;
/** How many recovery codes a set has. */
export const RECOVERY_CODE_COUNT = 10;

const totpOf = (secretBase32: string, label = 'Pigeon', issuer = 'Pigeon') =>
  new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD,
    secret: Secret.fromBase32(secretBase32),
  });

/** A fresh 160-bit secret (RFC 4226 §4 recommends 160 bits), base32 as authenticator apps take it. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

/** The `otpauth://totp/…` URI of a QR code: issuer "Pigeon", label the account's email. */
export const totpUri = (secretBase32: string, email: string): string => totpOf(secretBase32, email).toString();

/** Seals `secretBase32` for the `users.totp_secret` column of `userId`. */
export const sealTotpSecret = (deps: Pick<Deps, 'config' | 'secret'>, userId: string, secretBase32: string) =>
  sealSecret(keyring(deps), secretBase32, secretPlaces.totpSecret(userId));

/** The base32 secret in a `users.totp_secret` value. @throws as `openSecret`. */
export const openTotpSecret = (deps: Pick<Deps, 'config' | 'secret'>, userId: string, sealed: string) =>
  openSecret(keyring(deps), sealed, secretPlaces.totpSecret(userId));

/**
 * The time step `code` matches at `now` (±1 step), or null. Pure: does not check reuse.
 * @param code six digits (spaces are ignored).
 */
export function matchStep(secretBase32: string, code: string, now: Date): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpOf(secretBase32).validate({ token, timestamp: now.getTime(), window: 1 });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD) + delta;
}

/**
 * Checks a TOTP code of `userId` (whose sealed secret is `sealed`) and spends its step, in one
 * conditional update so that two requests with one code cannot both pass.
 * @returns true when the code matched a step later than the last one used.
 */
export async function spendTotpCode(
  deps: Pick<Deps, 'config' | 'secret' | 'clock'>,
  db: Tx,
  userId: string,
  sealed: string,
  code: string,
): Promise<boolean> {
  const step = matchStep(openTotpSecret(deps, userId, sealed), code, deps.clock.now());
  if (step === null) return false;
  const rows = await db
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id });
  return rows.length === 1;
}

/** A recovery code as shown: 10 base32 characters in two groups, `xxxxx-xxxxx` (50 bits). */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  const chars = [...randomBytes(10)].map((b) => alphabet[b % alphabet.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** How a recovery code is compared: lower case, without spaces or dashes. */
const normalizeRecovery = (code: string) => code.toLowerCase().replace(/[\s-]+/g, '');

/**
 * Replaces the recovery codes of `userId` by {@link RECOVERY_CODE_COUNT} new ones; only their SHA-256
 * is stored. @returns the codes in clear, to show once.
 */
export async function replaceRecoveryCodes(db: Tx, userId: string, now: Date): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  await db
    .insert(recoveryCodes)
    .values(codes.map((c) => ({ id: newId(), userId, codeHash: sha256(normalizeRecovery(c)), createdAt: now })));
  return codes;
}

/** Spends one unused recovery code of `userId`. @returns false for an unknown or used code. */
export async function spendRecoveryCode(db: Tx, userId: string, code: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(recoveryCodes)
    .set({ usedAt: now })
    .where(
      and(
        eq(recoveryCodes.userId, userId),
        eq(recoveryCodes.codeHash, sha256(normalizeRecovery(code))),
        isNull(recoveryCodes.usedAt),
      ),
    )
    .returning({ id: recoveryCodes.id });
  return rows.length === 1;
}

/** Start-up step: every TOTP secret sealed with the current key (lib/secret-places.ts). */
export async function resealTotpSecrets(deps: Pick<Deps, 'db' | 'config' | 'secret'>): Promise<ResealCount> {
  return resealColumn(deps, users, users.id, users.totpSecret, secretPlaces.totpSecret);
}
