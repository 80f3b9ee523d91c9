import { expect } from 'vitest';
import { uniqueEmail } from './factories.js';
import { createHarness, type Harness } from './harness.js';
import type { TestOidcProvider } from './oidc-provider.js';

/** The env of a harness signing in through `idp`. */
export const ssoEnv = (idp: TestOidcProvider, extra: Record<string, string> = {}) => ({
  OIDC_ISSUER: idp.issuer,
  OIDC_CLIENT_ID: idp.clientId,
  OIDC_CLIENT_SECRET: idp.clientSecret,
  OIDC_NAME: 'Test IdP',
  ...extra,
});

/** A Pigeon over `idp`, registered at it. */
export async function ssoHarness(
  idp: TestOidcProvider,
  extra: Record<string, string> = {},
  opts: { worker?: boolean } = {},
): Promise<Harness> {
  const h = await createHarness({ env: ssoEnv(idp, extra), worker: opts.worker });
  idp.register(`${h.url}/auth/oidc/callback`);
  return h;
}

/** An account at the provider, under a fresh login name. */
export function providerAccount(idp: TestOidcProvider, email = uniqueEmail('sso'), verified = true) {
  // oidc-provider's subject is the account id, the login name typed on its screen.
  const login = `acct-${Math.random().toString(36).slice(2, 10)}`;
  idp.accounts.set(login, { sub: login, email, email_verified: verified });
  return { login, email, sub: login };
}

export const flowCookieOf = (setCookie: string) => /oidc_flow=[^;]+/.exec(setCookie)?.[0];
export const sessionCookieOf = (setCookie: string) => /(?:^|, )(session=[^;]+)/.exec(setCookie)?.[1];
/** The refusal's code (`?sso=`) of a redirect to the login page, or null when it goes elsewhere. */
export const loginError = (location: string | null) =>
  location?.startsWith('/app/login?sso=') ? new URL(location, 'http://x').searchParams.get('sso') : null;

/**
 * The whole flow as a browser makes it: start (with `next`), the provider's screens as `login`, the
 * callback with the flow cookie. `tamper` may change the callback's query (a forged state).
 */
export async function signInWithSso(
  h: Harness,
  idp: TestOidcProvider,
  login: string,
  opts: { next?: string; tamper?: (q: URLSearchParams) => void; dropCookie?: boolean } = {},
) {
  const start = await h.request('GET', `/auth/oidc/start${opts.next ? `?next=${encodeURIComponent(opts.next)}` : ''}`);
  expect(start.status).toBe(302);
  const flow = flowCookieOf(start.headers.get('set-cookie') ?? '');
  expect(flow).toBeDefined();
  const back = await idp.signIn(start.headers.get('location')!, login);
  expect(back.pathname).toBe('/auth/oidc/callback');
  opts.tamper?.(back.searchParams);
  const callback = await h.request('GET', `${back.pathname}${back.search}`, {
    cookie: opts.dropCookie ? undefined : flow,
  });
  expect(callback.status).toBe(302);
  const location = callback.headers.get('location');
  return {
    callback,
    location,
    error: loginError(location),
    session: sessionCookieOf(callback.headers.get('set-cookie') ?? ''),
    flow,
    back,
  };
}
