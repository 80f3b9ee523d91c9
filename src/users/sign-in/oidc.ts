import { and, eq, lt } from 'drizzle-orm';
import { authChallenges } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { hashPassword, randomToken, sha256 } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { accountForIdentity, type SsoMatch } from './oidc-accounts.js';
import {
  authorizationUrl,
  exchangeCode,
  type FlowSecrets,
  newFlowSecrets,
  oidcEnabled,
  SsoError,
} from './oidc-client.js';
import { openSession } from '../sessions.js';

/**
 * Single sign-on with the instance's OpenID Connect provider (issue 39): the two legs of the flow.
 * The flow's state, nonce and PKCE verifier stay on the server in `auth_challenges` (purpose `oidc`,
 * {@link FLOW_TTL_MS}); the browser holds only a random secret, in a cookie, whose SHA-256 names the
 * row. So the callback must come back to the browser that started it (a link with someone else's
 * code and state does nothing: login CSRF), and a row is good for one callback.
 */

/** How long a started sign-in may take at the provider: 10 minutes. */
export const FLOW_TTL_MS = 10 * 60_000;

/** What the start of a sign-in gives the route: where to send the browser, and its cookie's secret. */
export interface StartedSignIn {
  redirectTo: string;
  cookieSecret: string;
}

/**
 * The in-app path to return to after signing in, or undefined when `next` is not one: a single leading
 * slash (never `//host` or `/\host`: no open redirect), no control characters, at most 1000 characters.
 * The same rule as the dashboard's `afterLoginPath` (web/src/features/auth/paths.ts).
 */
export function safeNext(next: string | undefined): string | undefined {
  if (!next || next.length > 1000 || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\'))
    return undefined;
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  return /[\u0000-\u001f\u007f]/.test(next) ? undefined : next;
}

/**
 * Starts a sign-in: stores its secrets and answers the provider's authorization URL.
 * @param next the in-app path to land on afterwards (checked by {@link safeNext}; dropped when unsafe).
 * @throws SsoError `not_configured` without OIDC settings; `provider_unreachable` (oidc-client.ts).
 */
export async function startSignIn(deps: Pick<Deps, 'config' | 'db' | 'clock'>, next?: string): Promise<StartedSignIn> {
  if (!oidcEnabled(deps.config)) throw new SsoError('not_configured');
  const secrets = newFlowSecrets();
  const url = await authorizationUrl(deps.config, secrets);
  const cookieSecret = randomToken();
  const now = deps.clock.now();
  await deps.db.insert(authChallenges).values({
    id: newId(),
    purpose: 'oidc',
    secretHash: sha256(cookieSecret),
    data: { ...secrets, next: safeNext(next) ?? null },
    expiresAt: new Date(now.getTime() + FLOW_TTL_MS),
    createdAt: now,
  });
  return { redirectTo: url.href, cookieSecret };
}

/** A finished sign-in: the session opened (method `oidc`) and where to go. */
export interface FinishedSignIn {
  userId: string;
  sessionId: string;
  match: SsoMatch;
  /** The in-app path given at the start, if any. */
  next?: string;
}

/**
 * Finishes a sign-in at the callback: takes (deletes) the flow's row named by the cookie's secret,
 * checks the provider's answer (oidc-client.ts `exchangeCode`), requires a verified email, finds or
 * makes the account (oidc-accounts.ts) and opens a session, the last two in one transaction.
 * @param query the callback's query string (`code`, `state`, `iss`, or `error`).
 * @param client the browser's User-Agent and address, kept with the session.
 * @throws SsoError with the refusal's code (sso-refusals.ts) for every refusal.
 */
export async function finishSignIn(
  deps: Pick<Deps, 'config' | 'db' | 'clock'>,
  cookieSecret: string | undefined,
  query: URLSearchParams,
  client: { userAgent?: string; ip?: string | null } = {},
): Promise<FinishedSignIn> {
  if (!oidcEnabled(deps.config)) throw new SsoError('not_configured');
  const flow = cookieSecret ? await takeFlow(deps, cookieSecret) : undefined;
  try {
    const providerError = query.get('error');
    if (providerError)
      throw new SsoError(
        providerError === 'access_denied' ? 'cancelled' : 'provider_error',
        providerError.slice(0, 100),
      );
    if (!flow) throw new SsoError('expired', cookieSecret ? 'unknown flow' : 'no flow cookie');
    if (query.get('state') !== flow.secrets.state) throw new SsoError('state_mismatch');

    const identity = await exchangeCode(deps.config, query, flow.secrets);
    if (!identity.email || !identity.emailVerified) throw new SsoError('email_unverified');
    const email = identity.email;
    const unusable = await hashPassword(randomToken());
    const now = deps.clock.now();
    return deps.db.transaction(async (tx) => {
      const { userId, match } = await accountForIdentity(deps, tx, { ...identity, email }, unusable, now);
      const sessionId = await openSession(tx, userId, now, client.userAgent, { method: 'oidc', ip: client.ip });
      return { userId, sessionId, match, next: flow.next };
    });
  } catch (err) {
    if (err instanceof SsoError && flow?.next) err.next = flow.next;
    throw err;
  }
}

/** Deletes and answers the live `oidc` flow whose cookie secret is `cookieSecret`. */
async function takeFlow(
  deps: Pick<Deps, 'db' | 'clock'>,
  cookieSecret: string,
): Promise<{ secrets: FlowSecrets; next?: string } | undefined> {
  const [row] = await deps.db
    .delete(authChallenges)
    .where(and(eq(authChallenges.secretHash, sha256(cookieSecret)), eq(authChallenges.purpose, 'oidc')))
    .returning();
  if (!row || row.expiresAt <= deps.clock.now()) return undefined;
  const d = row.data as Partial<FlowSecrets> & { next?: string | null };
  if (typeof d.state !== 'string' || typeof d.nonce !== 'string' || typeof d.codeVerifier !== 'string')
    return undefined;
  return {
    secrets: { state: d.state, nonce: d.nonce, codeVerifier: d.codeVerifier },
    next: safeNext(d.next ?? undefined),
  };
}

/**
 * Deletes sign-in challenges (every purpose) that expired before `now`; expired rows are refused when
 * read anyway, this only keeps the table small. Run by the `users:purge-challenges` job.
 * @returns how many rows went.
 */
export async function purgeExpiredChallenges(deps: Pick<Deps, 'db'>, now: Date): Promise<number> {
  const rows = await deps.db
    .delete(authChallenges)
    .where(lt(authChallenges.expiresAt, now))
    .returning({ id: authChallenges.id });
  return rows.length;
}
