import { and, eq, isNotNull, or } from 'drizzle-orm';
import { passkeys, users } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, invalid } from '../http/errors.js';
import { hashPassword, randomToken, sha256, verifyPassword } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { enqueue } from '../worker/jobs.js';
import { deliverAccountMail, sendAccountMail } from './account-mail.js';
import { accountExistsMail, resetMail, ssoAccountResetMail, verifyMail } from './account-mails.js';
import { passwordResetMailJob } from './users.jobs.js';
import {
  consumeToken,
  findLiveToken,
  spendTokens,
  findUserByEmail,
  findUserById,
  insertToken,
  insertUser,
  type UserRow,
} from './users.repo.js';
import { openSession, revokeAllSessions } from './sessions.js';
import { assertPasswordSignupAllowed, passwordResetAllowed } from './sign-in/signup-policy.js';
import type { UserOut } from './users.schema.js';
import type { LoginThrottle } from '../http/login-throttle.js';

const VERIFY_TTL_MS = 24 * 3600_000;
const RESET_TTL_MS = 3600_000;
// Verified against when the email is unknown, so a login takes as long whether or not the user exists.
let dummyHash: Promise<string> | undefined;

export const toUserOut = (u: UserRow): UserOut => ({
  id: u.id,
  email: u.email,
  emailVerified: u.emailVerified,
  createdAt: u.createdAt.toISOString(),
});

/** What {@link signup} did; the route answers both alike. */
export type SignupOutcome =
  | { created: true; user: UserRow }
  /** The address has an account: nothing was created, its owner was mailed; `user` is a stand-in. */
  | { created: false; user: UserRow };

/**
 * Creates an account and mails a verification link. For an address that already has an account it
 * creates nothing and mails the owner instead, and answers a stand-in of the same shape (a fresh id,
 * unverified, created now), after the same password hashing, so that the answer does not tell whether
 * the address is registered.
 * @throws AppError 403 FORBIDDEN when the instance's `SIGNUP` mode refuses it (signup-policy.ts).
 */
export async function signup(deps: Deps, email: string, password: string): Promise<SignupOutcome> {
  await assertPasswordSignupAllowed(deps, email);
  const now = deps.clock.now();
  const hash = await hashPassword(password);
  const user = await insertUser(deps.db, email, hash, now);
  if (user) {
    await requestVerification(deps, user);
    return { created: true, user };
  }
  await sendAccountMail(deps, email, accountExistsMail(deps));
  return {
    created: false,
    user: {
      id: newId(),
      email,
      passwordHash: '',
      emailVerified: false,
      totpSecret: null,
      totpEnabledAt: null,
      totpLastStep: null,
      createdAt: now,
      updatedAt: now,
    },
  };
}

/** The throttle a login goes through (http/login-throttle.ts), and the account of the device cookie. */
export interface LoginGuard {
  throttle: LoginThrottle | null;
  /** The account whose device cookie the request carries (users/device.ts), or null. */
  deviceUserId: string | null;
}

/**
 * Checks a login. Unknown addresses and wrong passwords cost the same scrypt work and count the same
 * against the account's failed logins. The count is not forgotten here but when the sign-in completes
 * (`throttle.succeeded`, by the caller): for an account with a second factor that is after the second
 * step, so that a known password does not reset the count of wrong codes.
 * @throws AppError 401 INVALID_CREDENTIALS for an unknown email or a wrong password; 429
 *   RATE_LIMIT_EXCEEDED while the account is throttled, unless the device signed in to it before.
 */
export async function login(
  deps: Deps,
  email: string,
  password: string,
  guard: LoginGuard = { throttle: null, deviceUserId: null },
): Promise<UserRow> {
  const user = await findUserByEmail(deps.db, email);
  await guard.throttle?.before(email, user !== undefined && guard.deviceUserId === user.id);
  // An unknown address is checked against a dummy hash, so that it costs the same time.
  const hash = user?.passwordHash ?? (await (dummyHash ??= hashPassword('not-a-password')));
  const ok = (await verifyPassword(password, hash)) && user !== undefined;
  if (!user || !ok) {
    await guard.throttle?.failed(email);
    throw new AppError('INVALID_CREDENTIALS', 'Invalid email or password');
  }
  return user;
}

/** @throws AppError 401 UNAUTHORIZED when the session's user no longer exists. */
export async function me(deps: Deps, userId: string): Promise<UserRow> {
  const user = await findUserById(deps.db, userId);
  if (!user) throw new AppError('UNAUTHORIZED', 'Session user no longer exists');
  return user;
}

/** Mails a one-time verification link (24 h). */
export async function requestVerification(deps: Deps, user: UserRow): Promise<void> {
  if (user.emailVerified) return;
  const token = randomToken();
  await insertToken(
    deps.db,
    user.id,
    'verify_email',
    sha256(token),
    new Date(deps.clock.now().getTime() + VERIFY_TTL_MS),
  );
  const link = `${deps.config.PUBLIC_URL}/verify-email?token=${token}`;
  await sendAccountMail(deps, user.email, verifyMail(link, VERIFY_TTL_MS));
}

/**
 * Confirms the address of the account a mailed verification token names.
 * - From a browser signed in to that very account (`sessionUserId`, the normal case: the user signed up
 *   here), the token alone confirms it.
 * - From anywhere else, `password` is required: it becomes the account's password, every other session
 *   of the account ends, and a new session is opened for this browser (unless the account has a second
 *   factor: then the browser signs in with the new password and the second step). Otherwise whoever created an
 *   account in someone else's name would get it confirmed by the owner's click, and keep it (they know
 *   its password).
 * @returns the session opened for this browser, if one was.
 * @throws AppError 400 BAD_REQUEST for an unknown, used or expired token; 422 VALIDATION_ERROR (field
 *   `password`, code `password_required`) when a password is needed and missing (the token stays good).
 */
export async function verifyEmail(
  deps: Deps,
  token: string,
  opts: { sessionUserId?: string; password?: string; userAgent?: string } = {},
): Promise<{ userId: string; sessionId?: string }> {
  const now = deps.clock.now();
  const hash = sha256(token);
  const owner = await findLiveToken(deps.db, 'verify_email', hash, now);
  if (!owner) throw new AppError('BAD_REQUEST', 'Invalid or expired verification token');
  const signedIn = opts.sessionUserId === owner;
  if (!signedIn && !opts.password) {
    throw invalid(
      'password',
      'Choose a password to confirm this address from this browser (or open the link where you signed up)',
      'password_required',
    );
  }
  const passwordHash = signedIn ? undefined : await hashPassword(opts.password!);
  return deps.db.transaction(async (tx) => {
    const userId = await consumeToken(tx, 'verify_email', hash, now);
    if (!userId) throw new AppError('BAD_REQUEST', 'Invalid or expired verification token');
    await tx
      .update(users)
      .set({ emailVerified: true, ...(passwordHash ? { passwordHash } : {}), updatedAt: now })
      .where(eq(users.id, userId));
    if (signedIn) return { userId };
    await revokeAllSessions(tx, userId, now);
    // An account with a second factor is not signed in by a mailed link and a password alone: the
    // browser signs in through the second step, with the new password.
    const [factor] = await tx
      .select({ id: users.id })
      .from(users)
      .leftJoin(passkeys, eq(passkeys.userId, users.id))
      .where(and(eq(users.id, userId), or(isNotNull(users.totpEnabledAt), isNotNull(passkeys.id))))
      .limit(1);
    if (factor) return { userId };
    return { userId, sessionId: await openSession(tx, userId, now, opts.userAgent) };
  });
}

/**
 * Queues the reset mail for `email` without looking the account up, so that the answer is the same,
 * in the same time, whether or not it exists: one job insert either way, and the worker decides
 * ({@link mailPasswordReset}). The job key folds repeated requests for one address into one mail while
 * the job waits. The payload is the address itself, as there may be no account to name by id.
 */
export async function requestPasswordReset(deps: Deps, email: string): Promise<void> {
  await enqueue(deps.db, passwordResetMailJob, { email }, { jobKey: `password-reset:${email}` });
}

/**
 * Job body: when an account has this address, stores a one-time reset token (1 h) and mails its link;
 * otherwise does nothing. An account that signs in through the provider of an `sso-only` instance
 * (signup-policy.ts `passwordResetAllowed`) gets no link, but a mail saying how it signs in.
 * @throws the transport's error (the job is retried, with a fresh token).
 */
export async function mailPasswordReset(deps: Deps, email: string): Promise<void> {
  const user = await findUserByEmail(deps.db, email);
  if (!user) return;
  if (!(await passwordResetAllowed(deps, deps.db, user.id)))
    return deliverAccountMail(deps, user.email, ssoAccountResetMail(deps));
  const token = randomToken();
  await insertToken(
    deps.db,
    user.id,
    'reset_password',
    sha256(token),
    new Date(deps.clock.now().getTime() + RESET_TTL_MS),
  );
  const link = `${deps.config.PUBLIC_URL}/reset-password?token=${token}`;
  await deliverAccountMail(deps, user.email, resetMail(link, RESET_TTL_MS));
}

/**
 * Sets a new password with a mailed token, ends every existing session of the account (someone who
 * knew the old password may hold one) and spends every other reset token of the account: a link
 * mailed earlier must not set the password again after this one did.
 * @throws AppError 400 BAD_REQUEST for an unknown, used or expired token.
 */
export async function resetPassword(deps: Deps, token: string, password: string): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const userId = await consumeToken(tx, 'reset_password', sha256(token), now);
    if (!userId) throw new AppError('BAD_REQUEST', 'Invalid or expired reset token');
    // A link mailed before the instance went sso-only.
    if (!(await passwordResetAllowed(deps, tx, userId)))
      throw new AppError(
        'FORBIDDEN',
        `This account signs in with ${deps.config.OIDC_NAME}: it has no password to choose. Sign in with ${deps.config.OIDC_NAME} instead.`,
      );
    await spendTokens(tx, userId, 'reset_password', now);
    // Hashed only for a valid token, so that wrong tokens cost no scrypt work. Following the link proves
    // the mailbox, so the address counts as verified.
    const passwordHash = await hashPassword(password);
    await tx.update(users).set({ passwordHash, emailVerified: true, updatedAt: now }).where(eq(users.id, userId));
    await revokeAllSessions(tx, userId, now);
  });
}

/** Ends every session of `userId`, this one included ("log out everywhere"). */
export async function revokeSessions(deps: Deps, userId: string): Promise<void> {
  await revokeAllSessions(deps.db, userId, deps.clock.now());
}

/**
 * Changes the password of a signed-in account after checking the current one, and ends every other
 * session (someone who knew the old password may hold one); `sessionId`, the caller's, stays open.
 * @throws AppError 422 VALIDATION_ERROR (field `currentPassword`, code `wrong_password`) when the
 *   current password is wrong: nothing changes; 401 UNAUTHORIZED when the user no longer exists.
 */
export async function changePassword(
  deps: Deps,
  userId: string,
  sessionId: string,
  currentPassword: string,
  newPassword: string,
): Promise<void> {
  const user = await me(deps, userId);
  if (!(await verifyPassword(currentPassword, user.passwordHash)))
    throw invalid('currentPassword', 'This is not your current password', 'wrong_password');
  const now = deps.clock.now();
  const passwordHash = await hashPassword(newPassword);
  await deps.db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, userId));
    await revokeAllSessions(tx, userId, now, sessionId);
  });
}
