import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { and, asc, eq } from 'drizzle-orm';
import { passkeys } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { downgradeWithoutFactor } from '../sessions.js';
import { createChallenge, findChallenge, spendChallenge } from './challenges.js';

/**
 * @simplewebauthn/server, loaded at the first passkey ceremony: with its ASN.1 and X.509 libraries it
 * adds tens of MB to a process, which most instances (no passkeys) should not carry while idle.
 */
const webauthn = () => import('@simplewebauthn/server');

/**
 * Passkeys (WebAuthn Level 3) through @simplewebauthn/server. The relying party is the dashboard's
 * own address: RP ID the hostname of PUBLIC_URL, origin its origin (the dashboard is served by the API
 * server, under /app/). Challenges are single-use rows of `auth_challenges` whose token is the WebAuthn
 * challenge itself (the browser sends it back inside `clientDataJSON`), alive 5 minutes.
 */

const CEREMONY_TTL_MS = 5 * 60_000;
const textDecoder = new TextDecoder();

/** A passkey as the API shows it. */
export interface PasskeyOut {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** Synced between devices by its provider (`backupState` of the authenticator data). */
  backedUp: boolean;
}

type PasskeyRow = typeof passkeys.$inferSelect;

const toOut = (p: PasskeyRow): PasskeyOut => ({
  id: p.id,
  name: p.name,
  createdAt: p.createdAt.toISOString(),
  lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
  backedUp: p.backedUp,
});

/** The relying party of this instance: RP ID (a host name) and the expected origin. */
export function relyingParty(deps: Pick<Deps, 'config'>): { rpID: string; origin: string } {
  const url = new URL(deps.config.PUBLIC_URL);
  return { rpID: url.hostname, origin: url.origin };
}

/** The challenge in a response's `clientDataJSON` (base64url), or '' when it cannot be read. */
function challengeOf(clientDataJSON: string): string {
  try {
    const data = JSON.parse(textDecoder.decode(Buffer.from(clientDataJSON, 'base64url'))) as { challenge?: unknown };
    return typeof data.challenge === 'string' ? data.challenge : '';
  } catch {
    return '';
  }
}

const refused = (why: string) =>
  new AppError('INVALID_CREDENTIALS', `The passkey could not be verified: ${why}`, {
    suggestion: 'Try again, or sign in with your password.',
  });

/** The passkeys of `userId`, oldest first. */
export async function listPasskeys(deps: Pick<Deps, 'db'>, userId: string): Promise<PasskeyOut[]> {
  const rows = await deps.db
    .select()
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .orderBy(asc(passkeys.createdAt));
  return rows.map(toOut);
}

/**
 * Options for `navigator.credentials.create()` to register a new passkey of `user`: a discoverable
 * credential (resident key required, so it signs in without a typed address), user verification
 * preferred, no attestation; the user's passkeys are excluded so one authenticator registers once.
 */
export async function registrationOptions(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  user: { id: string; email: string },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const mine = await deps.db.select().from(passkeys).where(eq(passkeys.userId, user.id));
  const options = await (
    await webauthn()
  ).generateRegistrationOptions({
    rpName: 'Pigeon',
    rpID: relyingParty(deps).rpID,
    userName: user.email,
    userID: new Uint8Array(Buffer.from(user.id.replaceAll('-', ''), 'hex')),
    attestationType: 'none',
    excludeCredentials: mine.map((p) => ({ id: p.credentialId, transports: p.transports ?? undefined })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await createChallenge(deps.db, {
    purpose: 'passkey-register',
    userId: user.id,
    now: deps.clock.now(),
    ttlMs: CEREMONY_TTL_MS,
    token: options.challenge,
  });
  return options;
}

/**
 * Verifies a registration response to {@link registrationOptions} and stores the passkey.
 * @throws AppError 401 INVALID_CREDENTIALS when the challenge is unknown, used or expired, or the
 *   response does not verify; 409 CONFLICT when the credential is registered already.
 */
export async function registerPasskey(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  userId: string,
  name: string,
  response: RegistrationResponseJSON,
): Promise<PasskeyOut> {
  const now = deps.clock.now();
  const challenge = await findChallenge(
    deps.db,
    'passkey-register',
    challengeOf(response.response.clientDataJSON),
    now,
  );
  if (!challenge || challenge.userId !== userId || !(await spendChallenge(deps.db, challenge.id)))
    throw refused('the request expired or was already used');
  const rp = relyingParty(deps);
  let verified;
  try {
    verified = await (
      await webauthn()
    ).verifyRegistrationResponse({
      response,
      expectedChallenge: challengeOf(response.response.clientDataJSON),
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: false,
    });
  } catch (err) {
    throw refused((err as Error).message);
  }
  if (!verified.verified) throw refused('the response does not verify');
  const info = verified.registrationInfo;
  const [row] = await deps.db
    .insert(passkeys)
    .values({
      id: newId(),
      userId,
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: info.credential.transports ?? response.response.transports ?? null,
      name,
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new AppError('CONFLICT', 'This passkey is registered already');
  return toOut(row);
}

/** Renames a passkey of `userId`. @throws AppError 404 for another user's or an unknown one. */
export async function renamePasskey(deps: Pick<Deps, 'db'>, userId: string, id: string, name: string) {
  const [row] = await deps.db
    .update(passkeys)
    .set({ name })
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
    .returning();
  if (!row) throw notFound('Passkey');
  return toOut(row);
}

/**
 * Removes a passkey of `userId`; when it was the account's last second factor, its two-factor sessions
 * count as password sessions from now on (sessions.ts). @throws AppError 404 for another user's or an
 * unknown one.
 */
export async function removePasskey(deps: Pick<Deps, 'db'>, userId: string, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const rows = await tx
      .delete(passkeys)
      .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
      .returning({ id: passkeys.id });
    if (!rows.length) throw notFound('Passkey');
    await downgradeWithoutFactor(tx, userId);
  });
}

/**
 * Options for `navigator.credentials.get()`. Without `userId`, for a sign-in with a discoverable
 * credential (no list: the authenticator offers its passkeys for this RP), with a new single-use
 * challenge whose token is returned; with `userId`, as the second step of a password sign-in, listing
 * that user's passkeys (the caller keeps the challenge in its own second-step row).
 */
export async function authenticationOptions(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  userId?: string,
): Promise<{ token: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const allow = userId ? await deps.db.select().from(passkeys).where(eq(passkeys.userId, userId)) : [];
  const options = await (
    await webauthn()
  ).generateAuthenticationOptions({
    rpID: relyingParty(deps).rpID,
    userVerification: 'preferred',
    allowCredentials: allow.map((p) => ({ id: p.credentialId, transports: p.transports ?? undefined })),
  });
  if (!userId) {
    await createChallenge(deps.db, {
      purpose: 'passkey-login',
      userId: null,
      now: deps.clock.now(),
      ttlMs: CEREMONY_TTL_MS,
      token: options.challenge,
    });
  }
  return { token: options.challenge, options };
}

/**
 * Verifies an assertion against `expectedChallenge` and the stored passkey it names, checks that the
 * signature counter moved forward (a cloned authenticator shows an old one; 0 means the authenticator
 * keeps none), and records the new counter and the use.
 * @param userId when set, the passkey must be this user's.
 * @returns the passkey's user.
 * @throws AppError 401 INVALID_CREDENTIALS for an unknown passkey or one that does not verify.
 */
export async function verifyAssertion(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  response: AuthenticationResponseJSON,
  expectedChallenge: string,
  userId?: string,
): Promise<string> {
  const [pk] = await deps.db.select().from(passkeys).where(eq(passkeys.credentialId, response.id)).limit(1);
  if (!pk || (userId && pk.userId !== userId)) throw refused('this passkey is not registered here');
  const rp = relyingParty(deps);
  let result;
  try {
    result = await (
      await webauthn()
    ).verifyAuthenticationResponse({
      response,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: false,
      credential: {
        id: pk.credentialId,
        publicKey: new Uint8Array(Buffer.from(pk.publicKey, 'base64url')),
        counter: pk.counter,
        transports: (pk.transports ?? undefined) as never,
      },
    });
  } catch (err) {
    throw refused((err as Error).message);
  }
  if (!result.verified) throw refused('the signature does not verify');
  // Conditional on the counter read: of two concurrent uses of one assertion only one moves it.
  const moved = await deps.db
    .update(passkeys)
    .set({ counter: result.authenticationInfo.newCounter, lastUsedAt: deps.clock.now() })
    .where(and(eq(passkeys.id, pk.id), eq(passkeys.counter, pk.counter)))
    .returning({ id: passkeys.id });
  if (!moved.length) throw refused('the passkey was used at the same time elsewhere');
  return pk.userId;
}

/**
 * Signs in with a discoverable passkey: spends the challenge `token` of {@link authenticationOptions}
 * and verifies the assertion. @returns the user.
 * @throws AppError 401 INVALID_CREDENTIALS (expired or used challenge, unknown or failing passkey).
 */
export async function passkeySignIn(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  token: string,
  response: AuthenticationResponseJSON,
): Promise<string> {
  const challenge = await findChallenge(deps.db, 'passkey-login', token, deps.clock.now());
  if (!challenge || !(await spendChallenge(deps.db, challenge.id)))
    throw refused('the sign-in expired or was already used; try again');
  return verifyAssertion(deps, response, token);
}
