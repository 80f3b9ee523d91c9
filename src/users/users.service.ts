import { eq, sql } from 'drizzle-orm';
import { users } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError } from '../http/errors.js';
import { hashPassword, randomToken, sha256, verifyPassword } from '../lib/crypto.js';
import { enqueue } from '../worker/jobs.js';
import { deliverAccountMail, sendAccountMail } from './account-mail.js';
import { passwordResetMailJob } from './users.jobs.js';
import { consumeToken, findUserByEmail, findUserById, insertToken, insertUser, type UserRow } from './users.repo.js';
import type { UserOut } from './users.schema.js';

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

/**
 * Creates an account and mails a verification link.
 * @throws AppError 403 FORBIDDEN when DISABLE_SIGNUPS; 409 CONFLICT when the email is taken.
 */
export async function signup(deps: Deps, email: string, password: string): Promise<UserRow> {
  if (deps.config.DISABLE_SIGNUPS) throw new AppError('FORBIDDEN', 'Signups are disabled on this server');
  const user = await insertUser(deps.db, email, await hashPassword(password), deps.clock.now());
  if (!user) throw new AppError('CONFLICT', 'An account with this email already exists');
  await requestVerification(deps, user);
  return user;
}

/** @throws AppError 401 INVALID_CREDENTIALS for an unknown email or a wrong password. */
export async function login(deps: Deps, email: string, password: string): Promise<UserRow> {
  const user = await findUserByEmail(deps.db, email);
  if (!user) {
    dummyHash ??= hashPassword('not-a-password');
    await verifyPassword(password, await dummyHash);
    throw new AppError('INVALID_CREDENTIALS', 'Invalid email or password');
  }
  if (!(await verifyPassword(password, user.passwordHash))) throw new AppError('INVALID_CREDENTIALS', 'Invalid email or password');
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
  await insertToken(deps.db, user.id, 'verify_email', sha256(token), new Date(deps.clock.now().getTime() + VERIFY_TTL_MS));
  const link = `${deps.config.PUBLIC_URL}/verify-email?token=${token}`;
  await sendAccountMail(deps, user.email, 'Verify your email address',
    `Confirm your email address for Pigeon by opening this link:\n\n${link}\n\nOr send this token to POST /auth/verify-email: ${token}\n\nThe link is valid for 24 hours.`);
}

/** @throws AppError 400 BAD_REQUEST for an unknown, used or expired token. */
export async function verifyEmail(deps: Deps, token: string): Promise<void> {
  const userId = await consumeToken(deps.db, 'verify_email', sha256(token), deps.clock.now());
  if (!userId) throw new AppError('BAD_REQUEST', 'Invalid or expired verification token');
  await deps.db.update(users).set({ emailVerified: true, updatedAt: deps.clock.now() }).where(eq(users.id, userId));
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
 * otherwise does nothing. @throws the transport's error (the job is retried, with a fresh token).
 */
export async function mailPasswordReset(deps: Deps, email: string): Promise<void> {
  const user = await findUserByEmail(deps.db, email);
  if (!user) return;
  const token = randomToken();
  await insertToken(deps.db, user.id, 'reset_password', sha256(token), new Date(deps.clock.now().getTime() + RESET_TTL_MS));
  const link = `${deps.config.PUBLIC_URL}/reset-password?token=${token}`;
  await deliverAccountMail(deps, user.email, 'Reset your password',
    `Someone asked to reset the password of your Pigeon account. To choose a new one, open:\n\n${link}\n\nOr send this token to POST /auth/reset-password: ${token}\n\nThe link is valid for one hour. If it was not you, ignore this mail.`);
}

/**
 * Sets a new password with a mailed token and ends every existing session of the account (someone who
 * knew the old password may hold one).
 * @throws AppError 400 BAD_REQUEST for an unknown, used or expired token.
 */
export async function resetPassword(deps: Deps, token: string, password: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const userId = await consumeToken(tx, 'reset_password', sha256(token), deps.clock.now());
    if (!userId) throw new AppError('BAD_REQUEST', 'Invalid or expired reset token');
    // Hashed only for a valid token, so that wrong tokens cost no scrypt work. Following the link proves
    // the mailbox, so the address counts as verified.
    const passwordHash = await hashPassword(password);
    await tx.update(users)
      .set({ passwordHash, emailVerified: true, sessionVersion: sql`${users.sessionVersion} + 1`, updatedAt: deps.clock.now() })
      .where(eq(users.id, userId));
  });
}

/** Ends every session of `userId`, this one included ("log out everywhere"). */
export async function revokeSessions(deps: Deps, userId: string): Promise<void> {
  await deps.db.update(users)
    .set({ sessionVersion: sql`${users.sessionVersion} + 1`, updatedAt: deps.clock.now() })
    .where(eq(users.id, userId));
}
