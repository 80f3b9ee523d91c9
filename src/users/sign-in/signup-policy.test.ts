import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, uniqueEmail } from '../../../test/factories.js';
import type { Harness } from '../../../test/harness.js';
import { startOidcProvider, type TestOidcProvider } from '../../../test/oidc-provider.js';
import { providerAccount, signInWithSso, ssoHarness } from '../../../test/sso-helpers.js';
import { ConfigError, loadConfig } from '../../config.js';
import { sha256 } from '../../lib/crypto.js';
import { waitForMail } from '../../../test/outbox.js';

describe('SIGNUP modes', () => {
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
  const setMode = (mode: 'open' | 'invite' | 'sso-only') => ((h.deps.config as { SIGNUP: string }).SIGNUP = mode);
  const passwordSignup = (email: string) =>
    h.request('POST', '/auth/signup', { body: { email, password: 'a long password' } });

  it('sso-only refuses every password sign-up but makes accounts through single sign-on', async () => {
    setMode('sso-only');
    try {
      const refused = await passwordSignup(uniqueEmail());
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringMatching(/only through Test IdP/),
      });
      expect((await h.request('GET', '/auth/oauth-config')).body.signup).toBe('sso-only');
      expect((await h.request('GET', '/config')).body.signups).toBe(false);
      const a = providerAccount(idp);
      const r = await signInWithSso(h, idp, a.login);
      expect((await h.request('GET', '/users/@me', { cookie: r.session })).body.email).toBe(a.email);
    } finally {
      setMode('open');
    }
  });

  it('invite refuses sign-up (password or SSO) without a pending invitation and allows it with one', async () => {
    const p = await createProject(h, await createVerifiedUser(h));
    const invited = uniqueEmail('invited');
    const ssoInvited = uniqueEmail('sso-invited');
    for (const email of [invited, ssoInvited]) {
      const inv = await h.request('POST', `/projects/${p.id}/members`, {
        cookie: p.owner.cookie,
        body: { email, role: 'MEMBER' },
      });
      expect(inv.status).toBe(202);
    }
    setMode('invite');
    try {
      const stranger = uniqueEmail('stranger');
      const refused = await passwordSignup(stranger);
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/by invitation only/);
      expect(await h.sql('select 1 from users where email = $1', [stranger])).toEqual([]);
      expect((await passwordSignup(invited)).status).toBe(201);

      const outsider = providerAccount(idp);
      expect((await signInWithSso(h, idp, outsider.login)).error).toBe('signup_refused');
      expect(await h.sql('select 1 from users where email = $1', [outsider.email])).toEqual([]);
      const guest = providerAccount(idp, ssoInvited);
      const r = await signInWithSso(h, idp, guest.login);
      expect(r.error).toBeNull();
      expect((await h.request('GET', '/users/@me', { cookie: r.session })).body.email).toBe(ssoInvited);
    } finally {
      setMode('open');
    }
  });
});

describe('password reset on an sso-only server', () => {
  let idp: TestOidcProvider;
  let h: Harness;
  beforeAll(async () => {
    idp = await startOidcProvider();
    h = await ssoHarness(idp, { SIGNUP: 'sso-only' }, { worker: true });
  });
  afterAll(async () => {
    await h?.close();
    await idp?.close();
  });
  const tokenIn = (text: string | undefined) => /token=([A-Za-z0-9_-]+)/.exec(text ?? '')?.[1];

  it('mails an account linked to the provider how it signs in, never a link to choose a password', async () => {
    const a = providerAccount(idp);
    expect((await signInWithSso(h, idp, a.login)).error).toBeNull();
    const asked = await h.request('POST', '/auth/request-password-reset', { body: { email: a.email } });
    expect(asked.status).toBe(200);
    const mail = await waitForMail(h.dataDir, a.email, 'You sign in to Pigeon with Test IdP');
    expect(mail.text).toContain('has no password to reset');
    expect(mail.text).toContain(`${h.url}/app/login`);
    expect(tokenIn(mail.text)).toBeUndefined();
    expect(
      await h.sql('select 1 from user_tokens t join users u on u.id = t.user_id where u.email = $1', [a.email]),
    ).toEqual([]);
    // A link mailed before the server went sso-only no longer sets a password either.
    const [{ id }] = await h.sql('select id from users where email = $1', [a.email]);
    await h.sql(
      "insert into user_tokens (id, user_id, kind, token_hash, expires_at) values (gen_random_uuid(), $1, 'reset_password', $2, now() + interval '1 hour')",
      [id, sha256('an-old-link')],
    );
    const reset = await h.request('POST', '/auth/reset-password', {
      body: { token: 'an-old-link', password: 'a password around the provider' },
    });
    expect(reset.status).toBe(403);
    expect(reset.body.error.message).toMatch(/signs in with Test IdP/);
    const [row] = await h.sql('select password_hash from users where id = $1', [id]);
    const login = await h.request('POST', '/auth/login', {
      body: { email: a.email, password: 'a password around the provider' },
    });
    expect(login.status).toBe(401);
    expect(row.password_hash).toMatch(/^scrypt\$/);
  });

  it('still mails a reset link to a password account the provider does not know', async () => {
    // Made with a password before the server went sso-only.
    const config = h.deps.config as { SIGNUP: string };
    config.SIGNUP = 'open';
    const u = await createVerifiedUser(h).finally(() => (config.SIGNUP = 'sso-only'));
    await h.request('POST', '/auth/request-password-reset', { body: { email: u.email } });
    const mail = await waitForMail(h.dataDir, u.email, 'Reset your password');
    expect(tokenIn(mail.text)).toBeTruthy();
  });
});

describe('SIGNUP and OIDC settings', () => {
  const parse = (env: Record<string, string>) => loadConfig(env);
  it('resolve SIGNUP from DISABLE_SIGNUPS and refuse contradictions and partial OIDC settings', () => {
    expect(parse({}).SIGNUP).toBe('open');
    expect(parse({ DISABLE_SIGNUPS: 'true' }).SIGNUP).toBe('invite');
    expect(() => parse({ DISABLE_SIGNUPS: 'true', SIGNUP: 'open' })).toThrow(ConfigError);
    expect(() => parse({ SIGNUP: 'sso-only' })).toThrow('OIDC_ISSUER: required when SIGNUP is sso-only');
    expect(() => parse({ OIDC_ISSUER: 'https://idp.example' })).toThrow(
      'OIDC_CLIENT_ID: required when OIDC_ISSUER is set',
    );
    expect(() => parse({ OIDC_ISSUER: 'http://idp.example', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' })).toThrow(
      /https URL/,
    );
    expect(() => parse({ OIDC_SCOPES: 'email profile' })).toThrow(/openid/);
  });

  it('never show the client secret in an error', () => {
    const secret = 'x'.repeat(2001);
    const env = { OIDC_ISSUER: 'https://idp.example', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: secret };
    expect(() => parse(env)).toThrow(/^OIDC_CLIENT_SECRET: .*\(got a value of 2001 characters\)$/);
  });
});
