import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, uniqueEmail, type TestUser } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { outboxTo, waitForMail } from '../../test/outbox.js';
import { eventually } from '../../test/sending-fixtures.js';

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
    return Promise.all(
      [
        h.request('GET', '/users/@me', { cookie }),
        h.request('GET', '/contacts', { cookie, headers: { 'x-project-id': projectId } }),
        h.request('GET', `/projects/${projectId}/members`, { cookie }),
      ].map(async (r) => (await r).status),
    );
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
    const reset = await h.request('POST', '/auth/reset-password', {
      body: { token: tokenIn(mail.text), password: 'a brand new password' },
    });
    expect(reset.status).toBe(200);
    expect(await statuses(before, p.id)).toEqual([401, 401, 401]);
    const fresh = await login(p.owner, 'a brand new password');
    expect(await statuses(fresh, p.id)).toEqual([200, 200, 200]);
    // A failed reset ends nothing.
    expect(
      (await h.request('POST', '/auth/reset-password', { body: { token: 'wrong', password: 'yet another password' } }))
        .status,
    ).toBe(400);
    expect(await statuses(fresh, p.id)).toEqual([200, 200, 200]);
  });

  it('ends sessions signed before sessions had rows (no sid claim): their holders sign in again', async () => {
    const p = await createProject(h);
    const iat = Math.floor(Date.now() / 1000);
    const legacy = await new SignJWT({ typ: 'session', sv: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(p.owner.id)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(new TextEncoder().encode(h.deps.secret));
    expect(await statuses(`session=${legacy}`, p.id)).toEqual([401, 401, 401]);
  });

  it('GET and POST /auth/logout end that session on the server: its copied cookie is refused, another session lives', async () => {
    const p = await createProject(h);
    const phone = await login(p.owner);
    const tablet = await login(p.owner);
    const out = await h.request('GET', '/auth/logout', { cookie: p.owner.cookie });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^session=;/);
    expect(await statuses(p.owner.cookie, p.id)).toEqual([401, 401, 401]);
    expect(await statuses(phone, p.id)).toEqual([200, 200, 200]);
    expect((await h.request('POST', '/auth/logout', { cookie: phone })).status).toBe(200);
    expect(await statuses(phone, p.id)).toEqual([401, 401, 401]);
    expect(await statuses(tablet, p.id)).toEqual([200, 200, 200]);
    // Logging out without a session, or twice, is no error.
    expect((await h.request('POST', '/auth/logout')).status).toBe(200);
    expect((await h.request('POST', '/auth/logout', { cookie: phone })).status).toBe(200);
    expect(
      await h.sql('select count(*)::int as n from sessions where user_id = $1 and revoked_at is not null', [
        p.owner.id,
      ]),
    ).toEqual([{ n: 2 }]);
  });

  it('ends a session unused for longer than the idle timeout; one in use slides on', async () => {
    const p = await createProject(h);
    const idle = p.owner.cookie;
    const used = await login(p.owner);
    const hours = h.deps.config.SESSION_IDLE_TIMEOUT_HOURS;
    try {
      h.clock.advance((hours - 1) * 3600_000);
      expect(await statuses(used, p.id)).toEqual([200, 200, 200]);
      h.clock.advance(2 * 3600_000); // idle: hours + 1 since sign-in; used: 2 hours since its last request
      expect(await statuses(idle, p.id)).toEqual([401, 401, 401]);
      expect(await statuses(used, p.id)).toEqual([200, 200, 200]);
    } finally {
      h.clock.set(new Date());
    }
  });

  it('an earlier reset link no longer works once a later one set the password', async () => {
    const p = await createProject(h);
    await h.request('POST', '/auth/request-password-reset', { body: { email: p.owner.email } });
    const first = tokenIn((await waitForMail(h.dataDir, p.owner.email, 'Reset your password')).text);
    await h.sql(`update user_tokens set created_at = created_at - interval '1 minute' where user_id = $1`, [
      p.owner.id,
    ]);
    await h.request('POST', '/auth/request-password-reset', { body: { email: p.owner.email } });
    const mails = async () =>
      (await outboxTo(h.dataDir, p.owner.email)).filter((m) => m.subject === 'Reset your password');
    await eventually(async () => ((await mails()).length === 2 ? true : undefined), 15_000, 'second reset mail');
    const second = (await mails()).map((m) => tokenIn(m.text)).find((t) => t !== first)!;
    expect(
      (await h.request('POST', '/auth/reset-password', { body: { token: second, password: 'the newer password' } }))
        .status,
    ).toBe(200);
    const old = await h.request('POST', '/auth/reset-password', {
      body: { token: first, password: 'the attacker password' },
    });
    expect(old.status).toBe(400);
    expect(
      (await h.request('POST', '/auth/login', { body: { email: p.owner.email, password: 'the newer password' } }))
        .status,
    ).toBe(200);
  });

  it("confirming an address from a browser without its session needs a password, which ends the creator's sessions", async () => {
    // An attacker signs up in the victim's name; the victim gets the mail and opens the link.
    const attacker = await createProject(h);
    const mail = (await outboxTo(h.dataDir, attacker.owner.email)).find(
      (m) => m.subject === 'Verify your email address',
    )!;
    const token = tokenIn(mail.text)!;
    const bare = await h.request('POST', '/auth/verify-email', { body: { token } });
    expect(bare.status).toBe(422);
    expect(bare.body.error.errors).toEqual([expect.objectContaining({ field: 'password', code: 'password_required' })]);
    expect((await h.sql('select email_verified from users where id = $1', [attacker.owner.id]))[0].email_verified).toBe(
      false,
    );
    const victim = await h.request('POST', '/auth/verify-email', {
      body: { token, password: 'the victim chose this' },
    });
    expect(victim.status).toBe(200);
    const victimCookie = /session=[^;]+/.exec(victim.headers.get('set-cookie')!)![0];
    expect((await h.request('GET', '/users/@me', { cookie: victimCookie })).body).toMatchObject({
      email: attacker.owner.email,
      emailVerified: true,
    });
    // The attacker's session and password are gone.
    expect(await statuses(attacker.owner.cookie, attacker.id)).toEqual([401, 401, 401]);
    expect(
      (
        await h.request('POST', '/auth/login', {
          body: { email: attacker.owner.email, password: attacker.owner.password },
        })
      ).status,
    ).toBe(401);
  });
});

/** The session cookie over https (finding 12 of "Hardening II"). */
describe('the session cookie over https', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { PUBLIC_URL: 'https://pigeon.example' } });
  });
  afterAll(() => h.close());

  it('is __Host-session: Secure, Path=/, no Domain; and the API takes it', async () => {
    const res = await h.request('POST', '/auth/signup', {
      body: { email: uniqueEmail(), password: 'a long password' },
    });
    const set = res.headers.get('set-cookie')!;
    expect(set).toMatch(/^__Host-session=[^;]+;/);
    expect(set).toMatch(/; Secure/i);
    expect(set).toMatch(/; Path=\//i);
    expect(set).not.toMatch(/Domain=/i);
    const cookie = /__Host-session=[^;]+/.exec(set)![0];
    expect((await h.request('GET', '/users/@me', { cookie })).status).toBe(200);
    // The plain name is not read over https.
    expect((await h.request('GET', '/users/@me', { cookie: cookie.replace('__Host-', '') })).status).toBe(401);
  });
});
