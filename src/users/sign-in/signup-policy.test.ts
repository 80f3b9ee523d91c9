import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, uniqueEmail } from '../../../test/factories.js';
import type { Harness } from '../../../test/harness.js';
import { startOidcProvider, type TestOidcProvider } from '../../../test/oidc-provider.js';
import { providerAccount, signInWithSso, ssoHarness } from '../../../test/sso-helpers.js';
import { ConfigError, loadConfig } from '../../config.js';

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
