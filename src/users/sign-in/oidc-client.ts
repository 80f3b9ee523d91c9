import * as client from 'openid-client';
import type { Deps } from '../../deps.js';
import type { SsoRefusal } from './sso-refusals.js';

/**
 * Pigeon as an OpenID Connect relying party (OpenID Connect Core 1.0, authorization code flow with
 * PKCE, RFC 7636) of the one provider the instance names (`OIDC_ISSUER`, `OIDC_CLIENT_ID`,
 * `OIDC_CLIENT_SECRET`), through `openid-client` v6. Only this file talks to the library.
 */

type OidcConfig = Pick<
  Deps['config'],
  'OIDC_ISSUER' | 'OIDC_CLIENT_ID' | 'OIDC_CLIENT_SECRET' | 'OIDC_SCOPES' | 'OIDC_NAME' | 'PUBLIC_URL'
>;

/** Whether the instance has single sign-on: the three settings are given (config.ts requires all or none). */
export const oidcEnabled = (config: OidcConfig): boolean =>
  Boolean(config.OIDC_ISSUER && config.OIDC_CLIENT_ID && config.OIDC_CLIENT_SECRET);

/** The redirect URI to register at the provider: `<PUBLIC_URL>/auth/oidc/callback`. */
export const redirectUri = (config: Pick<OidcConfig, 'PUBLIC_URL'>): string =>
  `${config.PUBLIC_URL}/auth/oidc/callback`;

/**
 * A failure of single sign-on that the person can be told about. `code` says which (the login page's
 * sentence); `detail` is for the log only (never shown, never a secret); `next` the in-app path the
 * sign-in was for, when known, so that the login page still leads there.
 */
export class SsoError extends Error {
  next?: string;
  constructor(
    readonly code: SsoRefusal,
    readonly detail?: string,
  ) {
    super(detail ? `${code}: ${detail}` : code);
  }
}

// Seconds the provider has to answer one request: the person is waiting on a redirect.
const PROVIDER_TIMEOUT_S = 10;
const discovered = new Map<string, Promise<client.Configuration>>();

/**
 * The provider's metadata (its discovery document, fetched at the first use and kept for the life of
 * the process) with Pigeon's client credentials (`client_secret_basic`). A failed fetch is not kept,
 * so the next sign-in tries again.
 * @throws SsoError `provider_unreachable` when the document cannot be fetched or is invalid.
 */
export async function providerConfiguration(config: OidcConfig): Promise<client.Configuration> {
  const issuer = config.OIDC_ISSUER!;
  const key = `${issuer}\n${config.OIDC_CLIENT_ID}\n${config.OIDC_CLIENT_SECRET}`;
  let pending = discovered.get(key);
  if (!pending) {
    // config.ts allows plain http only for a provider on this machine.
    const insecure = new URL(issuer).protocol === 'http:';
    pending = client.discovery(
      new URL(issuer),
      config.OIDC_CLIENT_ID!,
      undefined,
      client.ClientSecretBasic(config.OIDC_CLIENT_SECRET!),
      { timeout: PROVIDER_TIMEOUT_S, execute: insecure ? [client.allowInsecureRequests] : [] },
    );
    discovered.set(key, pending);
    pending.catch(() => discovered.delete(key));
  }
  try {
    const found = await pending;
    found.timeout = PROVIDER_TIMEOUT_S;
    return found;
  } catch (err) {
    throw new SsoError('provider_unreachable', (err as Error).message);
  }
}

/** What the browser must bring back to finish a sign-in: kept server-side, bound to its cookie. */
export interface FlowSecrets {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Fresh `state`, `nonce` and PKCE verifier (each 32 random bytes, base64url). */
export const newFlowSecrets = (): FlowSecrets => ({
  state: client.randomState(),
  nonce: client.randomNonce(),
  codeVerifier: client.randomPKCECodeVerifier(),
});

/** The provider's authorization URL for `secrets` (code flow, S256 PKCE, the configured scopes). */
export async function authorizationUrl(config: OidcConfig, secrets: FlowSecrets): Promise<URL> {
  const provider = await providerConfiguration(config);
  return client.buildAuthorizationUrl(provider, {
    redirect_uri: redirectUri(config),
    response_type: 'code',
    scope: config.OIDC_SCOPES,
    state: secrets.state,
    nonce: secrets.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(secrets.codeVerifier),
    code_challenge_method: 'S256',
  });
}

/** Who the provider says signed in. `emailVerified` is true only for the claim `true` (or `"true"`). */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

/**
 * Exchanges the authorization response (`query`: the callback's query string) for tokens, checking
 * state, the issuer (RFC 9207, when sent), PKCE and the ID token's signature, audience, expiry and
 * nonce; the email claims come from the ID token, else from the UserInfo endpoint (whose `sub` must
 * match).
 * @throws SsoError `exchange_failed` for anything the provider or the checks refuse.
 */
export async function exchangeCode(
  config: OidcConfig,
  query: URLSearchParams,
  secrets: FlowSecrets,
): Promise<ProviderIdentity> {
  const provider = await providerConfiguration(config);
  const current = new URL(redirectUri(config));
  current.search = query.toString();
  try {
    const tokens = await client.authorizationCodeGrant(provider, current, {
      pkceCodeVerifier: secrets.codeVerifier,
      expectedState: secrets.state,
      expectedNonce: secrets.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    let email = claims.email;
    let verified = claims.email_verified;
    if (typeof email !== 'string' || verified === undefined) {
      const info = await client.fetchUserInfo(provider, tokens.access_token, claims.sub);
      email = info.email;
      verified = info.email_verified;
    }
    return {
      issuer: provider.serverMetadata().issuer,
      subject: claims.sub,
      email: typeof email === 'string' ? email.trim().toLowerCase() : null,
      emailVerified: verified === true || verified === 'true',
    };
  } catch (err) {
    throw new SsoError('exchange_failed', (err as Error).message);
  }
}
