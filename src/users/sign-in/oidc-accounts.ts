import { and, eq } from 'drizzle-orm';
import { userIdentities, users } from '../../db/schema.js';
import type { Transaction } from '../../db/tx.js';
import type { Deps } from '../../deps.js';
import { newId } from '../../lib/ids.js';
import type { ProviderIdentity } from './oidc-client.js';
import { SsoError } from './oidc-client.js';
import { revokeAllSessions } from '../sessions.js';
import { ssoSignupAllowed } from './signup-policy.js';

/** How {@link accountForIdentity} found the account. */
export type SsoMatch = 'identity' | 'email' | 'created';

/**
 * The Pigeon account of a provider identity whose email the provider verified, in the caller's
 * transaction. In order:
 * 1. the account already linked to this identity (`user_identities` issuer + subject), whatever its
 *    address is now;
 * 2. else the account with the same address, and the identity is linked to it. An account whose
 *    address was never verified may have been created by someone else in this person's name, who knows
 *    its password: like a verification from another browser (users.service.ts `verifyEmail`), its
 *    address becomes verified, its password is replaced by `unusablePasswordHash` and its sessions end;
 * 3. else a new account (address verified, password `unusablePasswordHash`: the person may set one with
 *    "forgot password") when `SIGNUP` allows it (signup-policy.ts).
 * `unusablePasswordHash` is a scrypt hash of a random secret nobody holds, made before the transaction
 * (hashing takes a while), so a password login to such an account costs as long as any other and fails.
 * @throws SsoError `signup_refused` when no account matches and none may be created; `race` when a
 *   concurrent sign-in created the same account (trying again finds it).
 */
export async function accountForIdentity(
  deps: Pick<Deps, 'config'>,
  tx: Transaction,
  identity: ProviderIdentity & { email: string },
  unusablePasswordHash: string,
  now: Date,
): Promise<{ userId: string; match: SsoMatch }> {
  const [linked] = await tx
    .update(userIdentities)
    .set({ lastUsedAt: now, email: identity.email })
    .where(and(eq(userIdentities.issuer, identity.issuer), eq(userIdentities.subject, identity.subject)))
    .returning({ userId: userIdentities.userId });
  if (linked) return { userId: linked.userId, match: 'identity' };

  const [existing] = await tx
    .select({ id: users.id, emailVerified: users.emailVerified })
    .from(users)
    .where(eq(users.email, identity.email))
    .limit(1);
  if (existing) {
    if (!existing.emailVerified) {
      await tx
        .update(users)
        .set({ emailVerified: true, passwordHash: unusablePasswordHash, updatedAt: now })
        .where(eq(users.id, existing.id));
      await revokeAllSessions(tx, existing.id, now);
    }
    await link(tx, existing.id, identity, now);
    return { userId: existing.id, match: 'email' };
  }

  if (!(await ssoSignupAllowed(deps, tx, identity.email, now))) throw new SsoError('signup_refused');
  const [created] = await tx
    .insert(users)
    .values({
      id: newId(),
      email: identity.email,
      passwordHash: unusablePasswordHash,
      emailVerified: true,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: users.id });
  if (!created) throw new SsoError('race', 'the account was created by a concurrent sign-in');
  await link(tx, created.id, identity, now);
  return { userId: created.id, match: 'created' };
}

async function link(tx: Transaction, userId: string, identity: ProviderIdentity, now: Date): Promise<void> {
  const [row] = await tx
    .insert(userIdentities)
    .values({
      id: newId(),
      userId,
      issuer: identity.issuer,
      subject: identity.subject,
      email: identity.email,
      createdAt: now,
      lastUsedAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: userIdentities.id });
  // A concurrent sign-in of the same identity linked it first (maybe to another account): start over.
  if (!row) throw new SsoError('race', 'the account was created by a concurrent sign-in');
}
