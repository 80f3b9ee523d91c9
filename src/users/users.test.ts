import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, uniqueEmail } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { outboxTo, waitForMail } from '../../test/outbox.js';

const tokenIn = (text: string | undefined) => /token=([A-Za-z0-9_-]+)/.exec(text ?? '')?.[1];

/** Accounts: signup, login, logout, email verification, password reset, the session cookie. */
describe('accounts', () => {
  let h: Harness;
  beforeAll(async () => {
    // The worker sends the password reset mails.
    h = await createHarness({ worker: true });
  });
  afterAll(() => h.close());

  it('signs up, sets an HttpOnly SameSite=Lax session cookie, and answers GET /users/@me', async () => {
    const email = uniqueEmail();
    const res = await h.request('POST', '/auth/signup', {
      body: { email: `  ${email.toUpperCase()} `, password: 'a long password' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), email, emailVerified: false, createdAt: expect.any(String) });
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^session=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Max-Age=604800/);
    expect(setCookie).not.toMatch(/Secure/);
    const cookie = /session=[^;]+/.exec(setCookie)![0];
    const me = await h.request('GET', '/users/@me', { cookie });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);
    const [row] = await h.sql('select password_hash from users where email = $1', [email]);
    expect(row.password_hash).toMatch(/^scrypt\$/);
  });

  it('answers a signup for a taken address as for a new one, creates nothing and mails the owner; GET /users/@me without a session is 401', async () => {
    const u = await createUser(h);
    const res = await h.request('POST', '/auth/signup', { body: { email: u.email, password: 'another password' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      email: u.email,
      emailVerified: false,
      createdAt: expect.any(String),
    });
    expect(res.body.id).not.toBe(u.id);
    expect(res.headers.get('set-cookie')).toMatch(/^session=[^;]+;.*HttpOnly/i);
    // The stand-in session is no session; the owner's password is unchanged; the owner was told.
    const standIn = /session=[^;]+/.exec(res.headers.get('set-cookie')!)![0];
    expect((await h.request('GET', '/users/@me', { cookie: standIn })).status).toBe(401);
    expect(await h.sql('select count(*)::int as n from users where email = $1', [u.email])).toEqual([{ n: 1 }]);
    expect((await h.request('POST', '/auth/login', { body: { email: u.email, password: u.password } })).status).toBe(
      200,
    );
    const mail = await waitForMail(h.dataDir, u.email, 'Someone tried to create a Pigeon account with your address');
    expect(mail.text).toMatch(/already has one/);
    const me = await h.request('GET', '/users/@me');
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe('UNAUTHORIZED');
  });

  it('logs in with the right password only, and logs out by ending the session and clearing the cookie', async () => {
    const u = await createUser(h);
    const wrong = await h.request('POST', '/auth/login', { body: { email: u.email, password: 'wrong password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
    const unknown = await h.request('POST', '/auth/login', { body: { email: uniqueEmail(), password: 'whatever123' } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('INVALID_CREDENTIALS');
    const ok = await h.request('POST', '/auth/login', { body: { email: u.email, password: u.password } });
    expect(ok.status).toBe(200);
    expect(ok.body.id).toBe(u.id);
    expect(ok.headers.get('set-cookie')).toMatch(/^session=/);
    const out = await h.request('GET', '/auth/logout', { cookie: u.cookie });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^session=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/);
  });

  it('verifies the email address with the mailed one-time token', async () => {
    const u = await createUser(h);
    const [mail] = await outboxTo(h.dataDir, u.email);
    expect(mail.subject).toBe('Verify your email address');
    const token = tokenIn(mail.text);
    expect(token).toBeDefined();
    expect((await h.request('POST', '/auth/verify-email', { body: { token: 'nope' } })).status).toBe(400);
    // From the browser that signed up, the token alone confirms the address.
    expect((await h.request('POST', '/auth/verify-email', { cookie: u.cookie, body: { token } })).status).toBe(200);
    expect((await h.request('GET', '/users/@me', { cookie: u.cookie })).body.emailVerified).toBe(true);
    const reuse = await h.request('POST', '/auth/verify-email', { cookie: u.cookie, body: { token } });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error.code).toBe('BAD_REQUEST');
  });

  it('mails a new verification link on request', async () => {
    const u = await createUser(h);
    expect((await h.request('POST', '/auth/request-verification', { cookie: u.cookie })).status).toBe(200);
    expect(await outboxTo(h.dataDir, u.email)).toHaveLength(2);
    expect((await h.request('POST', '/auth/request-verification')).status).toBe(401);
  });

  it('resets a password with the mailed token, once, and says nothing about unknown emails', async () => {
    const u = await createUser(h);
    expect((await h.request('POST', '/auth/request-password-reset', { body: { email: u.email } })).status).toBe(200);
    const ghost = uniqueEmail();
    expect((await h.request('POST', '/auth/request-password-reset', { body: { email: ghost } })).status).toBe(200);
    const mail = await waitForMail(h.dataDir, u.email, 'Reset your password');
    expect(await outboxTo(h.dataDir, ghost)).toHaveLength(0);
    const token = tokenIn(mail.text)!;
    const res = await h.request('POST', '/auth/reset-password', { body: { token, password: 'brand new password' } });
    expect(res.status).toBe(200);
    expect((await h.request('POST', '/auth/login', { body: { email: u.email, password: u.password } })).status).toBe(
      401,
    );
    expect(
      (await h.request('POST', '/auth/login', { body: { email: u.email, password: 'brand new password' } })).status,
    ).toBe(200);
    expect(
      (await h.request('POST', '/auth/reset-password', { body: { token, password: 'third password' } })).status,
    ).toBe(400);
  });

  it('refuses an expired reset token', async () => {
    const u = await createUser(h);
    await h.request('POST', '/auth/request-password-reset', { body: { email: u.email } });
    const mail = await waitForMail(h.dataDir, u.email, 'Reset your password');
    h.clock.advance(2 * 3600_000);
    try {
      const res = await h.request('POST', '/auth/reset-password', {
        body: { token: tokenIn(mail.text), password: 'brand new password' },
      });
      expect(res.status).toBe(400);
    } finally {
      h.clock.set(new Date());
    }
  });

  it('answers /auth/oauth-config with no providers', async () => {
    expect((await h.request('GET', '/auth/oauth-config')).body).toEqual({
      google: false,
      github: false,
      oidc: { enabled: false, name: 'single sign-on' },
      signup: 'open',
    });
  });
});

describe('DISABLE_SIGNUPS', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { DISABLE_SIGNUPS: 'true' } });
  });
  afterAll(() => h.close());

  it('makes signup answer 403 FORBIDDEN and /config report it', async () => {
    const res = await h.request('POST', '/auth/signup', {
      body: { email: uniqueEmail(), password: 'a long password' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect((await h.request('GET', '/config')).body.signups).toBe(false);
    expect(await h.sql('select count(*)::int as n from users')).toEqual([{ n: 0 }]);
  });
});
