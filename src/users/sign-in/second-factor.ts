import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { count, eq } from 'drizzle-orm';
import { passkeys, type SignInMethod } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';
import { createChallenge, failChallenge, findChallenge, spendChallenge } from './challenges.js';
import { authenticationOptions, verifyAssertion } from './passkeys.js';
import { spendRecoveryCode, spendTotpCode } from './totp.js';
import { findUserById, type UserRow } from '../users.repo.js';
import type { LoginGuard } from '../users.service.js';

/**
 * The second step of a password sign-in for an account with a second factor: the first step answers
 * a token (256 random bits, only its SHA-256 stored in `auth_challenges`, purpose `second-factor`,
 * 5 minutes, deleted when used) that {@link verifySecondFactor} alone takes, with a TOTP code, a
 * recovery code or a passkey assertion. Wrong answers count against the account like wrong passwords
 * (http/login-throttle.ts), and the token dies at the {@link MAX_ATTEMPTS}-th.
 */

const SECOND_STEP_TTL_MS = 5 * 60_000;
/** Wrong codes one token takes before it is deleted. */
export const MAX_ATTEMPTS = 5;

/** A second factor a sign-in may ask for. */
export type FactorMethod = 'totp' | 'recovery' | 'passkey';

/** What `POST /auth/login` answers in place of a session for an account with a second factor. */
export interface SecondStep {
  token: string;
  expiresAt: string;
  methods: FactorMethod[];
  /** For `navigator.credentials.get()` when `methods` has `passkey` (PublicKeyCredentialRequestOptionsJSON). */
  passkeyOptions?: Record<string, unknown>;
}

/** The second factors `user` has: `totp` and `recovery` once TOTP is on, `passkey` with a passkey. */
export async function factorsOf(deps: Pick<Deps, 'db'>, user: UserRow): Promise<FactorMethod[]> {
  const [pk] = await deps.db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, user.id));
  const methods: FactorMethod[] = user.totpEnabledAt && user.totpSecret ? ['totp', 'recovery'] : [];
  if (pk.n > 0) methods.push('passkey');
  return methods;
}

/** Starts the second step of `user`'s sign-in (after the password was checked). */
export async function startSecondStep(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  user: UserRow,
  methods: FactorMethod[],
): Promise<SecondStep> {
  const passkey = methods.includes('passkey') ? await authenticationOptions(deps, user.id) : null;
  const { token, expiresAt } = await createChallenge(deps.db, {
    purpose: 'second-factor',
    userId: user.id,
    data: passkey ? { passkeyChallenge: passkey.token } : {},
    now: deps.clock.now(),
    ttlMs: SECOND_STEP_TTL_MS,
  });
  return {
    token,
    expiresAt: expiresAt.toISOString(),
    methods,
    ...(passkey ? { passkeyOptions: { ...passkey.options } } : {}),
  };
}

/** The answer to a second step: one of a TOTP code, a recovery code, a passkey assertion. */
export type SecondStepAnswer =
  | { code: string; recoveryCode?: undefined; passkey?: undefined }
  | { recoveryCode: string; code?: undefined; passkey?: undefined }
  | { passkey: AuthenticationResponseJSON; code?: undefined; recoveryCode?: undefined };

const expired = () =>
  new AppError('UNAUTHORIZED', 'This sign-in has expired or was already completed; sign in again with your password');

/**
 * Completes a second step: checks the answer against the account of `token` and spends the token.
 * @returns the user and how they signed in (`totp`, `recovery` or `passkey`).
 * @throws AppError 401 UNAUTHORIZED for an unknown, used or expired token; 401 INVALID_CREDENTIALS
 *   for a wrong, reused or spent code (counted against the account; the token dies after a few);
 *   429 while the account is throttled.
 */
export async function verifySecondFactor(
  deps: Pick<Deps, 'db' | 'config' | 'clock' | 'secret'>,
  token: string,
  answer: SecondStepAnswer,
  guard: LoginGuard,
): Promise<{ user: UserRow; method: SignInMethod }> {
  const now = deps.clock.now();
  const challenge = await findChallenge(deps.db, 'second-factor', token, now);
  const user = challenge?.userId ? await findUserById(deps.db, challenge.userId) : undefined;
  if (!challenge || !user) throw expired();
  await guard.throttle?.before(user.email, guard.deviceUserId === user.id);
  let method: SignInMethod | null = null;
  if (answer.passkey) {
    const expected = challenge.data.passkeyChallenge;
    if (typeof expected !== 'string') throw expired();
    // A failing assertion throws its own 401 and counts like a wrong code.
    try {
      await verifyAssertion(deps, answer.passkey, expected, user.id);
      method = 'passkey';
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
    }
  } else if (answer.recoveryCode !== undefined) {
    if (await spendRecoveryCode(deps.db, user.id, answer.recoveryCode, now)) method = 'recovery';
  } else if (user.totpSecret && user.totpEnabledAt) {
    if (await spendTotpCode(deps, deps.db, user.id, user.totpSecret, answer.code)) method = 'totp';
  }
  if (!method) {
    await guard.throttle?.failed(user.email);
    const left = await failChallenge(deps.db, challenge.id, MAX_ATTEMPTS);
    throw new AppError(
      'INVALID_CREDENTIALS',
      left > 0
        ? 'That code is not right, or it was used already; enter the current code'
        : 'That code is not right, and this sign-in has ended; sign in again with your password',
      { details: { attemptsLeft: left } },
    );
  }
  if (!(await spendChallenge(deps.db, challenge.id))) throw expired();
  await guard.throttle?.succeeded(user.email);
  return { user, method };
}
