import { and, eq, gt } from 'drizzle-orm';
import { invitations, userIdentities } from '../../db/schema.js';
import type { Tx } from '../../db/tx.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';

/**
 * Who may create an account on this instance (`SIGNUP`, issue 39), for password sign-up
 * (users.service.ts `signup`) and single sign-on (oidc.ts) alike:
 * - `open`: anyone;
 * - `invite` (also what `DISABLE_SIGNUPS=true` means): only an address with a pending, unexpired
 *   invitation to some project;
 * - `sso-only`: accounts come only from single sign-on; password sign-up is refused for everyone.
 * Existing accounts sign in as before in every mode.
 */
export type SignupMode = Deps['config']['SIGNUP'];

/** Whether `email` (lower-case, as the schemas normalise it) has a pending invitation that has not expired. */
export async function hasPendingInvitation(db: Tx, email: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ id: invitations.id })
    .from(invitations)
    .where(
      and(
        // Stored lower-case (projects.schema.ts `addMemberBody` uses emailField): the email index serves it.
        eq(invitations.email, email),
        eq(invitations.status, 'pending'),
        gt(invitations.expiresAt, now),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * Refuses a password sign-up the instance's `SIGNUP` mode does not allow.
 * @throws AppError 403 FORBIDDEN with a sentence saying how to get an account instead.
 */
export async function assertPasswordSignupAllowed(deps: Pick<Deps, 'config' | 'db' | 'clock'>, email: string) {
  const mode = deps.config.SIGNUP;
  if (mode === 'sso-only')
    throw new AppError(
      'FORBIDDEN',
      `This server creates accounts only through ${deps.config.OIDC_NAME}: use "Sign in with ${deps.config.OIDC_NAME}" on the login page`,
    );
  if (mode === 'invite' && !(await hasPendingInvitation(deps.db, email, deps.clock.now())))
    throw new AppError(
      'FORBIDDEN',
      "Sign-up on this server is by invitation only: ask a project's administrator to invite this address",
    );
}

/**
 * Whether single sign-on may create an account for `email` (a verified address no account has).
 * `open` and `sso-only` allow it; `invite` only with a pending invitation.
 */
export async function ssoSignupAllowed(deps: Pick<Deps, 'config'>, db: Tx, email: string, now: Date) {
  return deps.config.SIGNUP !== 'invite' || hasPendingInvitation(db, email, now);
}

/**
 * Whether `userId` may choose a password through a mailed link ("Forgot your password?"): not on an
 * `sso-only` instance when the account is linked to the provider, since a password would let it sign
 * in around the provider, where its people are switched off when they leave. Accounts without a link
 * (made with a password before the instance went `sso-only`) keep theirs.
 */
export async function passwordResetAllowed(deps: Pick<Deps, 'config'>, db: Tx, userId: string): Promise<boolean> {
  if (deps.config.SIGNUP !== 'sso-only') return true;
  const [linked] = await db
    .select({ id: userIdentities.id })
    .from(userIdentities)
    .where(eq(userIdentities.userId, userId))
    .limit(1);
  return !linked;
}
