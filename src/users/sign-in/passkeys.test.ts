import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { SoftAuthenticator } from '../../../test/webauthn-authenticator.js';

/** Passkeys: register, list, rename, remove; sign in with one alone, or as the second step. */
describe('passkeys', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  const cookieOf = (setCookie: string | null) => /session=[^;]+/.exec(setCookie ?? '')?.[0];

  async function register(u: TestUser, name = 'Laptop'): Promise<{ auth: SoftAuthenticator; id: string }> {
    const auth = new SoftAuthenticator(h.deps.config.PUBLIC_URL);
    const options = await h.request('POST', '/users/@me/passkeys/options', { cookie: u.cookie });
    expect(options.status).toBe(200);
    expect(options.body.rp.id).toBe(new URL(h.deps.config.PUBLIC_URL).hostname);
    expect(options.body.authenticatorSelection.residentKey).toBe('required');
    const res = await h.request('POST', '/users/@me/passkeys', {
      cookie: u.cookie,
      body: { name, response: auth.create(options.body) },
    });
    expect(res.status).toBe(201);
    return { auth, id: res.body.id };
  }

  it('registers a passkey and signs in with it alone; the counter must move forward', async () => {
    const u = await createUser(h);
    const { auth, id } = await register(u);
    const [row] = await h.sql('select credential_id, counter, name from passkeys where id = $1', [id]);
    expect(row).toMatchObject({ credential_id: auth.id, name: 'Laptop' });
    expect(
      await h.sql("select 1 from auth_challenges where user_id = $1 and purpose = 'passkey-register'", [u.id]),
    ).toHaveLength(0);

    const start = await h.request('POST', '/auth/passkey/options');
    expect(start.status).toBe(200);
    expect(start.body.options.userVerification).toBe('preferred');
    expect(start.body.options.allowCredentials ?? []).toEqual([]);
    const signed = await h.request('POST', '/auth/passkey', {
      body: { token: start.body.token, response: auth.get(start.body.options) },
    });
    expect(signed.status).toBe(200);
    expect(signed.body.email).toBe(u.email);
    const cookie = cookieOf(signed.headers.get('set-cookie'))!;
    expect((await h.request('GET', '/users/@me', { cookie })).status).toBe(200);
    const [s] = await h.sql('select method from sessions where user_id = $1 order by created_at desc limit 1', [u.id]);
    expect(s.method).toBe('passkey');
    const [used] = await h.sql('select counter, last_used_at from passkeys where id = $1', [id]);
    expect(Number(used.counter)).toBe(1);
    expect(used.last_used_at).not.toBeNull();

    // The challenge was spent.
    const replay = await h.request('POST', '/auth/passkey', {
      body: { token: start.body.token, response: auth.get(start.body.options, { keepCounter: true }) },
    });
    expect(replay.status).toBe(401);
    // A counter that did not move (a cloned authenticator) is refused.
    const next = await h.request('POST', '/auth/passkey/options');
    const cloned = await h.request('POST', '/auth/passkey', {
      body: { token: next.body.token, response: auth.get(next.body.options, { keepCounter: true }) },
    });
    expect(cloned.status).toBe(401);
    expect(cloned.body.error.code).toBe('INVALID_CREDENTIALS');
  });

  it('refuses an unknown passkey and a registration without its challenge', async () => {
    const u = await createUser(h);
    const stranger = new SoftAuthenticator(h.deps.config.PUBLIC_URL);
    const start = await h.request('POST', '/auth/passkey/options');
    const res = await h.request('POST', '/auth/passkey', {
      body: { token: start.body.token, response: stranger.get(start.body.options) },
    });
    expect(res.status).toBe(401);
    const forged = await h.request('POST', '/users/@me/passkeys', {
      cookie: u.cookie,
      body: { name: 'x', response: stranger.create({ challenge: 'bm90LWEtY2hhbGxlbmdl', rp: {}, user: { id: 'AA' } }) },
    });
    expect(forged.status).toBe(401);
    expect(await h.sql('select 1 from passkeys where user_id = $1', [u.id])).toHaveLength(0);
  });

  it('lists, renames and removes passkeys, only the account’s own', async () => {
    const u = await createUser(h);
    const other = await createUser(h);
    const { id } = await register(u, 'Phone');
    await register(u, 'Key');
    const list = await h.request('GET', '/users/@me/passkeys', { cookie: u.cookie });
    expect(list.body.map((p: { name: string }) => p.name)).toEqual(['Phone', 'Key']);
    expect(
      (await h.request('PATCH', `/users/@me/passkeys/${id}`, { cookie: other.cookie, body: { name: 'x' } })).status,
    ).toBe(404);
    const renamed = await h.request('PATCH', `/users/@me/passkeys/${id}`, {
      cookie: u.cookie,
      body: { name: 'Pixel' },
    });
    expect(renamed.body.name).toBe('Pixel');
    expect((await h.request('DELETE', `/users/@me/passkeys/${id}`, { cookie: other.cookie })).status).toBe(404);
    expect((await h.request('DELETE', `/users/@me/passkeys/${id}`, { cookie: u.cookie })).status).toBe(204);
    expect(await h.sql('select name from passkeys where user_id = $1', [u.id])).toEqual([{ name: 'Key' }]);
  });

  it('serves as the second step of a password sign-in', async () => {
    const u = await createUser(h);
    const { auth } = await register(u);
    const first = await h.request('POST', '/auth/login', { body: { email: u.email, password: u.password } });
    expect(first.body.twoFactor.methods).toEqual(['passkey']);
    const { token, passkeyOptions } = first.body.twoFactor;
    expect(passkeyOptions.allowCredentials.map((c: { id: string }) => c.id)).toEqual([auth.id]);
    const done = await h.request('POST', '/auth/login/verify', { body: { token, passkey: auth.get(passkeyOptions) } });
    expect(done.status).toBe(200);
    const [s] = await h.sql('select method from sessions where user_id = $1 order by created_at desc limit 1', [u.id]);
    expect(s.method).toBe('passkey');
  });

  it('leaves passkey sessions two-factor while a passkey remains, and counts them as password sessions after the last', async () => {
    const u = await createUser(h);
    const [a, b] = [await register(u, 'Phone'), await register(u, 'Key')];
    const start = await h.request('POST', '/auth/passkey/options');
    const signed = await h.request('POST', '/auth/passkey', {
      body: { token: start.body.token, response: a.auth.get(start.body.options) },
    });
    const cookie = cookieOf(signed.headers.get('set-cookie'))!;
    const methods = async () =>
      (await h.request('GET', '/users/@me/sessions', { cookie })).body.map((s: { method: string }) => s.method).sort();
    expect(await methods()).toEqual(['passkey', 'password']);
    expect((await h.request('DELETE', `/users/@me/passkeys/${a.id}`, { cookie })).status).toBe(204);
    expect(await methods()).toEqual(['passkey', 'password']);
    expect((await h.request('DELETE', `/users/@me/passkeys/${b.id}`, { cookie })).status).toBe(204);
    expect(await methods()).toEqual(['password', 'password']);
  });
});

/** The account's sessions: list with device and last use, revoke one alone. */
describe('sessions list', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('lists live sessions with device, marks this one, and revokes one alone', async () => {
    const u = await createUser(h);
    const phoneUa =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
    const login = await h.request('POST', '/auth/login', {
      body: { email: u.email, password: u.password },
      headers: { 'user-agent': phoneUa },
    });
    const phone = cookieOf(login.headers.get('set-cookie'))!;
    h.clock.advance(10 * 60_000);
    const list = await h.request('GET', '/users/@me/sessions', { cookie: u.cookie });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    expect(list.body[0]).toMatchObject({ current: true, method: 'password' });
    expect(list.body[1]).toMatchObject({ current: false, device: 'Safari on iPhone', method: 'password' });
    expect(list.body[1].ip).toBeTruthy();

    const other = await createUser(h);
    const foreign = await h.request('DELETE', `/users/@me/sessions/${list.body[1].id}`, { cookie: other.cookie });
    expect(foreign.status).toBe(404);
    expect((await h.request('GET', '/users/@me', { cookie: phone })).status).toBe(200);

    const revoked = await h.request('DELETE', `/users/@me/sessions/${list.body[1].id}`, { cookie: u.cookie });
    expect(revoked.status).toBe(204);
    expect((await h.request('GET', '/users/@me', { cookie: phone })).status).toBe(401);
    expect((await h.request('GET', '/users/@me', { cookie: u.cookie })).status).toBe(200);
    const after = await h.request('GET', '/users/@me/sessions', { cookie: u.cookie });
    expect(after.body.map((s: { id: string }) => s.id)).toEqual([list.body[0].id]);
  });
});

const cookieOf = (setCookie: string | null) => /session=[^;]+/.exec(setCookie ?? '')?.[0];
