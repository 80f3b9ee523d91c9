import { eq } from 'drizzle-orm';
import { users } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, invalid } from '../http/errors.js';
import { randomToken, sha256, verifyPassword } from '../lib/crypto.js';
import { sendAccountMail } from './account-mail.js';
import { emailChangeMail, emailChangedNotice } from './account-mails.js';
import { consumeToken, findUserByEmail, insertToken, spendTokens } from './users.repo.js';
import { me } from './users.service.js';

const CHANGE_TTL_MS = 24 * 3600_000;

/**
 * The address a change token moves the account to. The token is `<random>.<base64url(address)>`: the
 * address travels in the link, and only the token's SHA-256 is stored, so a token whose address was
 * edited matches no row (no column needed for it).
 */
const addressOf = (token: string): string | null => {
  const dot = token.lastIndexOf('.');
  if (dot < 1) return null;
  const address = Buffer.from(token.slice(dot + 1), 'base64url').toString('utf8');
  return address.includes('@') ? address : null;
};

/**
 * Starts moving a signed-in account to `newEmail`: checks the password, then mails a one-time link
 * (24 h) to the new address; the account keeps its address until that link is followed
 * ({@link confirmEmailChange}). When another account has the address, nothing is mailed and the answer
 * is the same, so that the form does not tell which addresses are registered.
 * @throws AppError 422 VALIDATION_ERROR: field `password` (code `wrong_password`) for a wrong
 *   password, field `newEmail` (code `same_email`) for the account's own address. Nothing changes.
 */
export async function requestEmailChange(
  deps: Deps,
  userId: string,
  password: string,
  newEmail: string,
): Promise<void> {
  const user = await me(deps, userId);
  if (!(await verifyPassword(password, user.passwordHash)))
    throw invalid('password', 'This is not your current password', 'wrong_password');
  if (newEmail === user.email) throw invalid('newEmail', 'This is already the address of your account', 'same_email');
  if (await findUserByEmail(deps.db, newEmail)) return;
  const token = `${randomToken()}.${Buffer.from(newEmail, 'utf8').toString('base64url')}`;
  const expiresAt = new Date(deps.clock.now().getTime() + CHANGE_TTL_MS);
  await insertToken(deps.db, user.id, 'change_email', sha256(token), expiresAt);
  const mail = emailChangeMail(deps, {
    link: `${deps.config.PUBLIC_URL}/app/confirm-email?token=${token}`,
    newEmail,
    ttlMs: CHANGE_TTL_MS,
  });
  await sendAccountMail(deps, newEmail, mail);
}

/**
 * Follows a mailed change link: the account takes the new address (verified, as the link proves the
 * mailbox), every other change link of the account is spent, and the old address is told.
 * @returns the new address.
 * @throws AppError 400 BAD_REQUEST for an unknown, used or expired token; 409 CONFLICT when another
 *   account took the address meanwhile (the token stays spent, nothing else changes).
 */
export async function confirmEmailChange(deps: Deps, token: string): Promise<string> {
  const now = deps.clock.now();
  const newEmail = addressOf(token);
  const bad = () => new AppError('BAD_REQUEST', 'Invalid or expired address change link');
  if (!newEmail) throw bad();
  const done = await deps.db.transaction(async (tx) => {
    const userId = await consumeToken(tx, 'change_email', sha256(token), now);
    if (!userId) throw bad();
    await spendTokens(tx, userId, 'change_email', now);
    const [old] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
    if (await findUserByEmail(tx, newEmail)) return null;
    await tx.update(users).set({ email: newEmail, emailVerified: true, updatedAt: now }).where(eq(users.id, userId));
    return old.email;
  });
  if (done === null) throw new AppError('CONFLICT', 'Another account uses this address now');
  await sendAccountMail(deps, done, emailChangedNotice(deps, { newEmail }));
  return newEmail;
}
