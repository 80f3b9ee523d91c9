import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestUser } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { waitForMail } from '../../test/outbox.js';

const tokenIn = (text: string | undefined) => /token=([A-Za-z0-9_-]+)/.exec(text ?? '')?.[1];

/** Session revocation: a password reset or "log out everywhere" ends every existing session. */
describe('session revocation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(() => h.close());

  async function login(u: TestUser, password = u.password): Promise<string> {
    const res = await h.request('POST', '/auth/login', { body: { email: u.email, password } });
    expect(res.status).toBe(200);
    return /session=[^;]+/.exec(res.headers.get('set-cookie')!)![0];
  }

  /** Every kind of session call: the account, a project through X-Project-Id, a project by path. */
  async function statuses(cookie: string, projectId: string): Promise<number[]> {
    return Promise.all([
      h.request('GET', '/users/@me', { cookie }),
      h.request('GET', '/contacts', { cookie, headers: { 'x-project-id': projectId } }),
      h.request('GET', `/projects/${projectId}/members`, { cookie }),
    ].map(async (r) => (await r).status));
  }

  it('ends every session of the account on POST /auth/logout-all; a new login works', async () => {
    const p = await createProject(h);
    const laptop = p.owner.cookie;
    const phone = await login(p.owner);
    expect(await statuses(laptop, p.id)).toEqual([200, 200, 200]);
    expect(await statuses(phone, p.id)).toEqual([200, 200, 200]);

    const out = await h.request('POST', '/auth/logout-all', { cookie: phone });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true });
    expect(out.headers.get('set-cookie')).toMatch(/^session=;/);
    expect(await statuses(laptop, p.id)).toEqual([401, 401, 401]);
    expect(await statuses(phone, p.id)).toEqual([401, 401, 401]);
    const me = await h.request('GET', '/users/@me', { cookie: laptop });
    expect(me.body.error.code).toBe('UNAUTHORIZED');

    const fresh = await login(p.owner);
    expect(await statuses(fresh, p.id)).toEqual([200, 200, 200]);
    expect((await h.request('POST', '/auth/logout-all')).status).toBe(401);
  });

  it('ends every session on a password reset; the new password signs in', async () => {
    const p = await createProject(h);
    const before = p.owner.cookie;
    await h.request('POST', '/auth/request-password-reset', { body: { email: p.owner.email } });
    const mail = await waitForMail(h.dataDir, p.owner.email, 'Reset your password');
    // Until the reset is done, the session lives.
    expect(await statuses(before, p.id)).toEqual([200, 200, 200]);
    const reset = await h.request('POST', '/auth/reset-password', { body: { token: tokenIn(mail.text), password: 'a brand new password' } });
    expect(reset.status).toBe(200);
    expect(await statuses(before, p.id)).toEqual([401, 401, 401]);
    const fresh = await login(p.owner, 'a brand new password');
    expect(await statuses(fresh, p.id)).toEqual([200, 200, 200]);
    // A failed reset ends nothing.
    expect((await h.request('POST', '/auth/reset-password', { body: { token: 'wrong', password: 'yet another password' } })).status).toBe(400);
    expect(await statuses(fresh, p.id)).toEqual([200, 200, 200]);
  });

  it('keeps sessions signed before versions existed (no sv claim) until the first revocation', async () => {
    const p = await createProject(h);
    const iat = Math.floor(Date.now() / 1000);
    const legacy = await new SignJWT({ typ: 'session' }).setProtectedHeader({ alg: 'HS256' }).setSubject(p.owner.id)
      .setIssuedAt(iat).setExpirationTime(iat + 3600).sign(new TextEncoder().encode(h.deps.secret));
    const cookie = `session=${legacy}`;
    expect(await statuses(cookie, p.id)).toEqual([200, 200, 200]);
    await h.request('POST', '/auth/logout-all', { cookie: p.owner.cookie });
    expect(await statuses(cookie, p.id)).toEqual([401, 401, 401]);
  });
});
