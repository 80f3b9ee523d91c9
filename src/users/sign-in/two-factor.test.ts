import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, type TestUser } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { sha256 } from '../../lib/crypto.js';
import { keyring, secretPlaces } from '../../lib/secret-places.js';
import { isSealed, openSecret } from '../../lib/secrets.js';

const PER_ACCOUNT = 3;
let ipCounter = 0;
/** A fresh client address per test (TRUST_PROXY=loopback), so the per-address limit stays out of the way. */
const newIp = () => `198.51.100.${++ipCounter}`;

/** TOTP two-factor sign-in: enrolment, the second sign-in step, recovery codes, the throttle, disabling. */
describe('two-factor sign-in (TOTP)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({
      env: {
        AUTH_RATE_LIMIT_PER_ACCOUNT: String(PER_ACCOUNT),
        AUTH_RATE_LIMIT_PER_IP: '1000',
        TRUST_PROXY: 'loopback',
      },
    });
  });
  afterAll(() => h.close());

  const codeAt = (secret: string, offsetSteps = 0) =>
    new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
      timestamp: h.clock.now().getTime() + offsetSteps * 30_000,
    });
  const cookieOf = (setCookie: string | null) => /session=[^;]+/.exec(setCookie ?? '')?.[0];

  /** Enrols `u` and returns the secret and the recovery codes; the clock then moves to the next step. */
  async function enrol(u: TestUser): Promise<{ secret: string; recoveryCodes: string[] }> {
    const start = await h.request('POST', '/users/@me/totp', { cookie: u.cookie });
    expect(start.status).toBe(200);
    const { secret, uri } = start.body;
    expect(uri).toMatch(/^otpauth:\/\/totp\/Pigeon:/);
    expect(decodeURIComponent(uri)).toContain(u.email);
    const confirm = await h.request('POST', '/users/@me/totp/confirm', {
      cookie: u.cookie,
      body: { code: codeAt(secret) },
    });
    expect(confirm.status).toBe(200);
    h.clock.advance(30_000);
    return { secret, recoveryCodes: confirm.body.recoveryCodes };
  }

  const login = (u: TestUser, ip = newIp()) =>
    h.request('POST', '/auth/login', {
      body: { email: u.email, password: u.password },
      headers: { 'x-forwarded-for': ip },
    });
  const verify = (body: Record<string, unknown>, ip = newIp()) =>
    h.request('POST', '/auth/login/verify', { body, headers: { 'x-forwarded-for': ip } });

  it('enrols with a sealed secret and hashed recovery codes; confirming makes this session two-factor', async () => {
    const u = await createUser(h);
    const before = await login(u);
    expect(Object.keys(before.body).sort()).toEqual(['createdAt', 'email', 'emailVerified', 'id']);

    const start = await h.request('POST', '/users/@me/totp', { cookie: u.cookie });
    const wrong = await h.request('POST', '/users/@me/totp/confirm', { cookie: u.cookie, body: { code: '000000' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.errors[0]).toMatchObject({ field: 'code', code: 'wrong_code' });
    const [pending] = await h.sql('select totp_secret, totp_enabled_at from users where id = $1', [u.id]);
    expect(pending.totp_enabled_at).toBeNull();
    expect(isSealed(pending.totp_secret)).toBe(true);
    expect(openSecret(keyring(h.deps), pending.totp_secret, secretPlaces.totpSecret(u.id))).toBe(start.body.secret);

    const confirm = await h.request('POST', '/users/@me/totp/confirm', {
      cookie: u.cookie,
      body: { code: codeAt(start.body.secret) },
    });
    expect(confirm.status).toBe(200);
    const codes: string[] = confirm.body.recoveryCodes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const stored = await h.sql('select code_hash from recovery_codes where user_id = $1', [u.id]);
    expect(stored).toHaveLength(10);
    expect(stored.map((r: { code_hash: string }) => r.code_hash)).not.toContain(codes[0]);
    const [session] = await h.sql('select method from sessions where user_id = $1 order by created_at limit 1', [u.id]);
    expect(session.method).toBe('totp');
    expect((await h.request('GET', '/users/@me/totp', { cookie: u.cookie })).body).toMatchObject({
      enabled: true,
      recoveryCodesLeft: 10,
    });
    // A second start while on is refused.
    expect((await h.request('POST', '/users/@me/totp', { cookie: u.cookie })).status).toBe(409);
  });

  it('asks for the code after the password; a wrong or reused code is refused, the current one signs in', async () => {
    const u = await createUser(h);
    const { secret } = await enrol(u);

    const first = await login(u);
    expect(first.status).toBe(200);
    expect(first.headers.get('set-cookie') ?? '').not.toMatch(/(^|, )session=/);
    expect(first.body.twoFactor.methods).toEqual(['totp', 'recovery']);
    const token: string = first.body.twoFactor.token;
    const [challenge] = await h.sql('select secret_hash, purpose from auth_challenges where user_id = $1', [u.id]);
    expect(challenge.purpose).toBe('second-factor');
    expect(challenge.secret_hash).not.toBe(token);

    const bad = await verify({ token, code: codeAt(secret) === '123456' ? '654321' : '123456' });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('INVALID_CREDENTIALS');
    // The token is good for nothing else: not a session.
    expect((await h.request('GET', '/users/@me', { cookie: `session=${token}` })).status).toBe(401);

    const code = codeAt(secret);
    const ok = await verify({ token, code });
    expect(ok.status).toBe(200);
    expect(ok.body.email).toBe(u.email);
    const cookie = cookieOf(ok.headers.get('set-cookie'))!;
    expect((await h.request('GET', '/users/@me', { cookie })).status).toBe(200);
    const [s] = await h.sql('select method, ip from sessions where user_id = $1 order by created_at desc limit 1', [
      u.id,
    ]);
    expect(s.method).toBe('totp');
    expect(s.ip).toMatch(/^198\.51\.100\./);
    expect(await h.sql('select 1 from auth_challenges where user_id = $1', [u.id])).toHaveLength(0);

    // The token was spent; a new sign-in with the same code (same step) is refused as reused.
    expect((await verify({ token, code })).status).toBe(401);
    const again = await login(u);
    const reused = await verify({ token: again.body.twoFactor.token, code });
    expect(reused.status).toBe(401);
    expect(reused.body.error.code).toBe('INVALID_CREDENTIALS');
  });

  it('takes a recovery code once', async () => {
    const u = await createUser(h);
    const { recoveryCodes } = await enrol(u);
    const a = await login(u);
    const ok = await verify({ token: a.body.twoFactor.token, recoveryCode: recoveryCodes[3].toUpperCase() });
    expect(ok.status).toBe(200);
    const [s] = await h.sql('select method from sessions where user_id = $1 order by created_at desc limit 1', [u.id]);
    expect(s.method).toBe('recovery');
    const b = await login(u);
    const spent = await verify({ token: b.body.twoFactor.token, recoveryCode: recoveryCodes[3] });
    expect(spent.status).toBe(401);
    const [left] = await h.sql('select count(*)::int n from recovery_codes where user_id = $1 and used_at is null', [
      u.id,
    ]);
    expect(left.n).toBe(9);
  });

  it('counts wrong codes against the account like wrong passwords, and a token dies after a few', async () => {
    const u = await createUser(h);
    const { secret } = await enrol(u);
    const wrong = codeAt(secret) === '111111' ? '222222' : '111111';
    const { body } = await login(u);
    for (let i = 0; i < PER_ACCOUNT; i++) {
      expect((await verify({ token: body.twoFactor.token, code: wrong })).status).toBe(401);
    }
    // The account is throttled now: the right code waits too, from any address.
    const blocked = await verify({ token: body.twoFactor.token, code: codeAt(secret) });
    expect(blocked.status).toBe(429);
    expect((await login(u)).status).toBe(429);
  });

  it('ends a second-step token after five wrong codes', async () => {
    const h2 = await createHarness({ env: { AUTH_RATE_LIMIT_PER_ACCOUNT: '0', TRUST_PROXY: 'loopback' } });
    try {
      const u = await createUser(h2);
      const start = await h2.request('POST', '/users/@me/totp', { cookie: u.cookie });
      const secret = start.body.secret;
      const now = () =>
        new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: h2.clock.now().getTime() });
      await h2.request('POST', '/users/@me/totp/confirm', { cookie: u.cookie, body: { code: now() } });
      h2.clock.advance(30_000);
      const first = await h2.request('POST', '/auth/login', { body: { email: u.email, password: u.password } });
      const token = first.body.twoFactor.token;
      const wrong = now() === '111111' ? '222222' : '111111';
      const answers = [];
      for (let i = 0; i < 5; i++)
        answers.push(await h2.request('POST', '/auth/login/verify', { body: { token, code: wrong } }));
      expect(answers.map((a) => a.body.error.details.attemptsLeft)).toEqual([4, 3, 2, 1, 0]);
      const late = await h2.request('POST', '/auth/login/verify', { body: { token, code: now() } });
      expect(late.status).toBe(401);
      expect(late.body.error.code).toBe('UNAUTHORIZED');
    } finally {
      await h2.close();
    }
  });

  it('makes new recovery codes and turns off with a current code; then sign-in is one step again', async () => {
    const u = await createUser(h);
    const { secret, recoveryCodes } = await enrol(u);
    const refused = await h.request('POST', '/users/@me/recovery-codes', { cookie: u.cookie, body: { code: 'nope' } });
    expect(refused.status).toBe(422);
    const fresh = await h.request('POST', '/users/@me/recovery-codes', {
      cookie: u.cookie,
      body: { code: codeAt(secret) },
    });
    expect(fresh.status).toBe(200);
    expect(fresh.body.recoveryCodes).toHaveLength(10);
    expect(fresh.body.recoveryCodes).not.toContain(recoveryCodes[0]);
    h.clock.advance(30_000);

    const off = await h.request('DELETE', '/users/@me/totp', { cookie: u.cookie, body: { code: codeAt(secret) } });
    expect(off.status).toBe(204);
    const [row] = await h.sql('select totp_secret, totp_enabled_at from users where id = $1', [u.id]);
    expect(row).toEqual({ totp_secret: null, totp_enabled_at: null });
    expect(await h.sql('select 1 from recovery_codes where user_id = $1', [u.id])).toHaveLength(0);
    const one = await login(u);
    expect(one.body.email).toBe(u.email);
    expect(cookieOf(one.headers.get('set-cookie'))).toBeTruthy();
  });

  it('a verification link opened in another browser signs an account with two-factor in through the second step only', async () => {
    const u = await createUser(h);
    await enrol(u);
    const token = 'a-mailed-verification-token';
    await h.sql(
      "insert into user_tokens (id, user_id, kind, token_hash, expires_at) values (gen_random_uuid(), $1, 'verify_email', $2, now() + interval '1 hour')",
      [u.id, sha256(token)],
    );
    const res = await h.request('POST', '/auth/verify-email', { body: { token, password: 'a new long password' } });
    expect(res.status).toBe(200);
    expect(cookieOf(res.headers.get('set-cookie'))).toBeUndefined();
    const next = await login({ ...u, password: 'a new long password' });
    expect(next.body.twoFactor.methods).toContain('totp');
  });

  it('turns away a password-only member of a project that requires two-factor, and lets in one with TOTP', async () => {
    const p = await createProject(h);
    const project = () => h.request('GET', '/contacts', { cookie: p.owner.cookie, headers: { 'x-project-id': p.id } });
    // The owner's own session is password-only: turning the requirement on is refused.
    const early = await h.request('PATCH', `/users/@me/projects/${p.id}`, {
      cookie: p.owner.cookie,
      body: { require2fa: true },
    });
    expect(early.status).toBe(403);
    expect(early.body.error.code).toBe('TWO_FACTOR_REQUIRED');

    await enrol(p.owner); // upgrades this session
    const on = await h.request('PATCH', `/projects/${p.id}`, {
      cookie: p.owner.cookie,
      body: { require2fa: true },
    });
    expect(on.status).toBe(200);
    expect(on.body.require2fa).toBe(true);
    expect((await project()).status).toBe(200);

    const member = await createUser(h);
    await h.sql("insert into memberships (project_id, user_id, role) values ($1, $2, 'MEMBER')", [p.id, member.id]);
    const turned = await h.request('GET', '/contacts', { cookie: member.cookie, headers: { 'x-project-id': p.id } });
    expect(turned.status).toBe(403);
    expect(turned.body.error.code).toBe('TWO_FACTOR_REQUIRED');
    expect(turned.body.error.message).toMatch(/two-factor/);
    const byPath = await h.request('GET', `/projects/${p.id}/members`, { cookie: member.cookie });
    expect(byPath.body.error.code).toBe('TWO_FACTOR_REQUIRED');
    // The account's own routes keep working, and the project list shows the requirement.
    const mine = await h.request('GET', '/users/@me/projects', { cookie: member.cookie });
    expect(mine.status).toBe(200);
    expect(mine.body[0].require2fa).toBe(true);
    // API keys are not affected.
    expect((await h.request('GET', '/contacts', { key: p.secretKey })).status).toBe(200);

    await enrol(member);
    expect(
      (await h.request('GET', '/contacts', { cookie: member.cookie, headers: { 'x-project-id': p.id } })).status,
    ).toBe(200);
  });

  it('lets a member the requirement turns away leave the project, and nothing else', async () => {
    const p = await createProject(h);
    await enrol(p.owner);
    expect(
      (await h.request('PATCH', `/projects/${p.id}`, { cookie: p.owner.cookie, body: { require2fa: true } })).status,
    ).toBe(200);
    const [stays, leaves] = [await createUser(h), await createUser(h)];
    for (const u of [stays, leaves])
      await h.sql("insert into memberships (project_id, user_id, role) values ($1, $2, 'ADMIN')", [p.id, u.id]);
    // Another member's removal still needs the second factor, even for an admin.
    const other = await h.request('DELETE', `/projects/${p.id}/members/${stays.id}`, { cookie: leaves.cookie });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('TWO_FACTOR_REQUIRED');
    const left = await h.request('DELETE', `/projects/${p.id}/members/${leaves.id}`, { cookie: leaves.cookie });
    expect(left.status).toBe(204);
    expect(await h.sql('select user_id from memberships where project_id = $1 order by role', [p.id])).toEqual(
      expect.arrayContaining([{ user_id: p.owner.id }, { user_id: stays.id }]),
    );
    expect(await h.sql('select 1 from memberships where project_id = $1 and user_id = $2', [p.id, leaves.id])).toEqual(
      [],
    );
  });

  it('counts the sessions as password sessions once the last second factor is turned off', async () => {
    const p = await createProject(h);
    const { secret } = await enrol(p.owner);
    expect(
      (await h.request('PATCH', `/projects/${p.id}`, { cookie: p.owner.cookie, body: { require2fa: true } })).status,
    ).toBe(200);
    const contacts = () => h.request('GET', '/contacts', { cookie: p.owner.cookie, headers: { 'x-project-id': p.id } });
    expect((await contacts()).status).toBe(200);
    const off = await h.request('DELETE', '/users/@me/totp', {
      cookie: p.owner.cookie,
      body: { code: codeAt(secret) },
    });
    expect(off.status).toBe(204);
    const turned = await contacts();
    expect(turned.status).toBe(403);
    expect(turned.body.error.code).toBe('TWO_FACTOR_REQUIRED');
    const sessions = await h.request('GET', '/users/@me/sessions', { cookie: p.owner.cookie });
    expect(sessions.body.map((s: { method: string }) => s.method)).toEqual(['password']);
  });
});
