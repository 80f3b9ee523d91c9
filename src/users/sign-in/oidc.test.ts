import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/harness.js';
import { createUser, createVerifiedUser, uniqueEmail } from '../../../test/factories.js';
import { startOidcProvider, type TestOidcProvider } from '../../../test/oidc-provider.js';
import {
  flowCookieOf,
  loginError,
  providerAccount,
  signInWithSso,
  ssoEnv,
  ssoHarness,
} from '../../../test/sso-helpers.js';

describe('single sign-on (OpenID Connect, against a local oidc-provider)', () => {
  let idp: TestOidcProvider;
  let h: Harness;
  beforeAll(async () => {
    idp = await startOidcProvider();
    h = await ssoHarness(idp);
  });
  afterAll(async () => {
    await h?.close();
    await idp?.close();
  });

  it('answers the sign-in options in /auth/oauth-config, old fields unchanged', async () => {
    const res = await h.request('GET', '/auth/oauth-config');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      google: false,
      github: false,
      oidc: { enabled: true, name: 'Test IdP' },
      signup: 'open',
    });
  });

  it('sends the browser to the provider with state, nonce and S256 PKCE, keeping only a hash of the cookie', async () => {
    const res = await h.request('GET', '/auth/oidc/start');
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(idp.issuer);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: idp.clientId,
      redirect_uri: `${h.url}/auth/oidc/callback`,
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      state: expect.any(String),
      nonce: expect.any(String),
    });
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/oidc_flow=[\w-]{43}; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax/);
    const secret = flowCookieOf(cookie)!.split('=')[1];
    const rows = await h.sql(
      "select secret_hash, data, expires_at - created_at as ttl from auth_challenges where purpose = 'oidc'",
    );
    expect(rows.some((r) => r.secret_hash === secret)).toBe(false);
    const mine = rows.find((r) => r.data.state === to.searchParams.get('state'));
    expect(mine.ttl).toEqual({ minutes: 10 });
    expect(mine.data.codeVerifier).toEqual(expect.any(String));
  });

  it('creates a verified account on the first sign-in, opens an oidc session and lands on ?next=', async () => {
    const a = providerAccount(idp);
    const r = await signInWithSso(h, idp, a.login, { next: '/p/123/contacts?x=1' });
    expect(r.error).toBeNull();
    expect(r.location).toBe('/app/p/123/contacts?x=1');
    const me = await h.request('GET', '/users/@me', { cookie: r.session });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: a.email, emailVerified: true });
    expect(await h.sql('select method from sessions where user_id = $1', [me.body.id])).toEqual([{ method: 'oidc' }]);
    expect(await h.sql('select issuer, subject, email from user_identities where user_id = $1', [me.body.id])).toEqual([
      { issuer: idp.issuer, subject: a.sub, email: a.email },
    ]);
    // The flow's row is spent: the same callback again is refused.
    const again = await h.request('GET', `${r.back.pathname}${r.back.search}`, { cookie: r.flow });
    expect(loginError(again.headers.get('location'))).toBe('expired');
    // Its password is unusable: nobody knows it.
    const login = await h.request('POST', '/auth/login', {
      body: { email: a.email, password: 'correct horse battery' },
    });
    expect(login.status).toBe(401);
  });

  it('matches an existing account by verified email and links the identity; later sign-ins go by the identity', async () => {
    const user = await createVerifiedUser(h, uniqueEmail('linked'));
    const a = providerAccount(idp, user.email);
    const r = await signInWithSso(h, idp, a.login);
    expect(r.location).toBe('/app/');
    expect((await h.request('GET', '/users/@me', { cookie: r.session })).body.id).toBe(user.id);
    expect(await h.sql('select user_id from user_identities where subject = $1', [a.sub])).toEqual([
      { user_id: user.id },
    ]);
    // The password still works, and the account has one account row only.
    expect(
      (await h.request('POST', '/auth/login', { body: { email: user.email, password: user.password } })).status,
    ).toBe(200);
    // The address changes at the provider: the identity still names the same account.
    idp.accounts.set(a.login, { sub: a.sub, email: uniqueEmail('renamed'), email_verified: true });
    const r2 = await signInWithSso(h, idp, a.login);
    expect((await h.request('GET', '/users/@me', { cookie: r2.session })).body.id).toBe(user.id);
  });

  it('takes over an unverified account of the same address: its password and sessions end', async () => {
    const squatter = await createUser(h, uniqueEmail('squat'));
    const a = providerAccount(idp, squatter.email);
    const r = await signInWithSso(h, idp, a.login);
    expect((await h.request('GET', '/users/@me', { cookie: r.session })).body).toMatchObject({
      id: squatter.id,
      emailVerified: true,
    });
    expect((await h.request('GET', '/users/@me', { cookie: squatter.cookie })).status).toBe(401);
    const login = await h.request('POST', '/auth/login', {
      body: { email: squatter.email, password: squatter.password },
    });
    expect(login.status).toBe(401);
  });

  it('refuses an email the provider has not verified, and makes no account', async () => {
    const a = providerAccount(idp, uniqueEmail('unverified'), false);
    const r = await signInWithSso(h, idp, a.login, { next: '/p/1/contacts' });
    expect(r.error).toBe('email_unverified');
    // The login page still leads where the person was going.
    expect(new URL(r.location!, 'http://x').searchParams.get('next')).toBe('/p/1/contacts');
    expect(r.session).toBeUndefined();
    expect(await h.sql('select 1 from users where email = $1', [a.email])).toEqual([]);
  });

  it('refuses a forged state, a missing flow cookie and a provider error, each with its code', async () => {
    const a = providerAccount(idp);
    const forged = await signInWithSso(h, idp, a.login, { tamper: (q) => q.set('state', 'forged-state') });
    expect(forged.error).toBe('state_mismatch');
    const noCookie = await signInWithSso(h, idp, a.login, { dropCookie: true });
    expect(noCookie.error).toBe('expired');
    const denied = await h.request('GET', '/auth/oidc/callback?error=access_denied&state=x');
    expect(loginError(denied.headers.get('location'))).toBe('cancelled');
    const failed = await h.request('GET', '/auth/oidc/callback?error=server_error&state=x');
    expect(loginError(failed.headers.get('location'))).toBe('provider_error');
    const bare = await h.request('GET', '/auth/oidc/callback');
    expect(loginError(bare.headers.get('location'))).toBe('expired');
    expect(await h.sql('select 1 from users where email = $1', [a.email])).toEqual([]);
  });

  it('never redirects out of the dashboard through ?next=', async () => {
    for (const next of ['//evil.example/x', '/\\evil.example', 'https://evil.example/']) {
      const a = providerAccount(idp);
      expect((await signInWithSso(h, idp, a.login, { next })).location).toBe('/app/');
    }
  });

  it('purges expired challenges', async () => {
    await h.request('GET', '/auth/oidc/start');
    const { purgeExpiredChallenges } = await import('./oidc.js');
    const later = new Date(Date.now() + 11 * 60_000);
    expect(await purgeExpiredChallenges(h.deps, later)).toBeGreaterThan(0);
    expect(await h.sql('select 1 from auth_challenges where expires_at < $1', [later])).toEqual([]);
  });
});

describe('single sign-on when the provider is down or not configured', () => {
  it('sends the browser back to the login page with a sentence, no 500', async () => {
    const idp = await startOidcProvider(); // never registered: every request answers 503
    const h = await createHarness({ env: ssoEnv(idp) });
    const none = await createHarness();
    try {
      const res = await h.request('GET', '/auth/oidc/start');
      expect(res.status).toBe(302);
      expect(loginError(res.headers.get('location'))).toBe('provider_unreachable');
      expect(await h.sql('select 1 from auth_challenges')).toEqual([]);
      const off = await none.request('GET', '/auth/oidc/start');
      expect(loginError(off.headers.get('location'))).toBe('not_configured');
      expect((await none.request('GET', '/auth/oauth-config')).body).toEqual({
        google: false,
        github: false,
        oidc: { enabled: false, name: 'single sign-on' },
        signup: 'open',
      });
    } finally {
      await h.close();
      await none.close();
      await idp.close();
    }
  });
});

describe('single sign-on routes are throttled per client address like /auth/*', () => {
  it('answers 429 past AUTH_RATE_LIMIT_PER_IP, start and callback sharing one budget', async () => {
    const idp = await startOidcProvider();
    const h = await ssoHarness(idp, { AUTH_RATE_LIMIT_PER_IP: '3' });
    try {
      expect((await h.request('GET', '/auth/oidc/start')).status).toBe(302);
      expect((await h.request('GET', '/auth/oidc/callback?code=x&state=y')).status).toBe(302);
      expect((await h.request('GET', '/auth/oidc/start')).status).toBe(302);
      const limited = await h.request('GET', '/auth/oidc/start');
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(await h.sql("select count(*)::int as n from auth_challenges where purpose = 'oidc'")).toEqual([{ n: 2 }]);
    } finally {
      await h.close();
      await idp.close();
    }
  });
});
