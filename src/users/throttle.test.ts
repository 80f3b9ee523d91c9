import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, uniqueEmail } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness, type Response } from '../../test/harness.js';
import { accountMailQuota } from '../http/rate-limit.js';
import { outboxTo, waitForMail } from '../../test/outbox.js';

const PER_IP = 6;
const PER_ACCOUNT = 3;
let ipCounter = 0;
/** A fresh client address per test (TRUST_PROXY=loopback: X-Forwarded-For names the client). */
const newIp = () => `198.51.100.${++ipCounter}`;

function expect429(res: Response) {
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', statusCode: 429 } });
  expect(res.body.error.requestId).toBe(res.headers.get('x-request-id'));
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

/** Throttles of the credential endpoints: per client IP and per account. */
describe('credential endpoint throttles', () => {
  let h: Harness;
  beforeAll(async () => {
    // The test client plays a proxy on loopback, so that X-Forwarded-For gives each test its own address.
    h = await createHarness({
      env: {
        AUTH_RATE_LIMIT_PER_IP: String(PER_IP),
        AUTH_RATE_LIMIT_PER_ACCOUNT: String(PER_ACCOUNT),
        TRUST_PROXY: 'loopback',
      },
      worker: true,
    });
  });
  afterAll(() => h.close());

  const post = (path: string, body: unknown, ip: string) =>
    h.request('POST', path, { body, headers: { 'x-forwarded-for': ip } });

  it('throttles an account after N failed logins from any address, but not its owner on a device seen before, nor a reset', async () => {
    const u = await createUser(h);
    // The owner's browser signed in before: it holds the device cookie.
    const seen = await post('/auth/login', { email: u.email, password: u.password }, newIp());
    expect(seen.status).toBe(200);
    const device = /(^|,\s*)(device=[^;]+)/.exec(seen.headers.get('set-cookie') ?? '')?.[2];
    expect(device).toBeDefined();
    // An attacker fails N logins from N addresses (successes never counted).
    for (let i = 0; i < PER_ACCOUNT; i++)
      expect((await post('/auth/login', { email: u.email, password: `wrong guess ${i}` }, newIp())).status).toBe(401);
    // Now a login from a new device is refused, even with the right password...
    const fresh = await post('/auth/login', { email: ` ${u.email.toUpperCase()} `, password: u.password }, newIp());
    expect429(fresh);
    expect(fresh.body.error.message).toMatch(/failed sign-ins for this account/);
    // ...but the owner's known device signs in,
    const owner = await h.request('POST', '/auth/login', {
      body: { email: u.email, password: u.password },
      headers: { 'x-forwarded-for': newIp(), cookie: device! },
    });
    expect(owner.status).toBe(200);
    // and a password reset is not blocked: the request is answered and its link works.
    expect((await post('/auth/request-password-reset', { email: u.email }, newIp())).status).toBe(200);
    const mail = await waitForMail(h.dataDir, u.email, 'Reset your password');
    const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '')![1];
    expect((await post('/auth/reset-password', { token, password: 'a fresh password' }, newIp())).status).toBe(200);
    // Another account is not concerned.
    const other = await createUser(h);
    expect((await post('/auth/login', { email: other.email, password: other.password }, newIp())).status).toBe(200);
  });

  it('backs off further while the failures go on', async () => {
    const u = await createUser(h);
    for (let i = 0; i < PER_ACCOUNT; i++)
      await post('/auth/login', { email: u.email, password: `wrong guess ${i}` }, newIp());
    const first = await post('/auth/login', { email: u.email, password: 'guess again' }, newIp());
    expect429(first);
    for (let i = 0; i < PER_ACCOUNT; i++)
      await post('/auth/login', { email: u.email, password: `more guesses ${i}` }, newIp());
    const later = await post('/auth/login', { email: u.email, password: 'and again' }, newIp());
    expect429(later);
    expect(Number(later.headers.get('retry-after'))).toBeGreaterThan(Number(first.headers.get('retry-after')) + 60);
  });

  it('refuses the (N+1)th request from one address, and not another address on another account', async () => {
    const a = newIp();
    for (let i = 0; i < PER_IP; i++) {
      // Each on its own account, so only the address counts; malformed bodies count too.
      const body = i % 2 ? { email: uniqueEmail(), password: 'whatever123' } : { email: 'not-an-email' };
      expect([401, 422]).toContain((await post('/auth/login', body, a)).status);
    }
    expect429(await post('/auth/login', { email: uniqueEmail(), password: 'whatever123' }, a));
    // One budget across the credential endpoints.
    expect429(await post('/auth/signup', { email: uniqueEmail(), password: 'a long password' }, a));
    expect429(await post('/auth/request-password-reset', { email: uniqueEmail() }, a));
    expect429(await post('/auth/reset-password', { token: 'x', password: 'a long password' }, a));
    expect429(await post('/auth/verify-email', { token: 'x' }, a));
    const b = newIp();
    const other = await post('/auth/login', { email: uniqueEmail(), password: 'whatever123' }, b);
    expect(other.status).toBe(401);
    expect(other.body.error.code).toBe('INVALID_CREDENTIALS');
  });

  it('throttles token guessing on reset-password and verify-email per address', async () => {
    const a = newIp();
    for (let i = 0; i < PER_IP; i++) {
      const path = i % 2 ? '/auth/reset-password' : '/auth/verify-email';
      expect((await post(path, { token: `guess-${i}`, password: 'a long password' }, a)).status).toBe(400);
    }
    expect429(await post('/auth/verify-email', { token: 'guess' }, a));
  });

  it('limits signups per address', async () => {
    const a = newIp();
    for (let i = 0; i < PER_IP; i++)
      expect((await post('/auth/signup', { email: uniqueEmail(), password: 'a long password' }, a)).status).toBe(201);
    expect429(await post('/auth/signup', { email: uniqueEmail(), password: 'a long password' }, a));
  });

  it('answers a reset request the same for known and unknown accounts, mails only the known one, and caps the mails', async () => {
    const u = await createUser(h);
    const ghost = uniqueEmail('ghost');
    const known = await post('/auth/request-password-reset', { email: u.email }, newIp());
    const unknown = await post('/auth/request-password-reset', { email: ghost }, newIp());
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(known.status);
    expect(unknown.text).toBe(known.text);
    expect(known.body).toEqual({ success: true });
    const mail = await waitForMail(h.dataDir, u.email, 'Reset your password');
    expect(mail.text).toMatch(/token=/);
    expect(await outboxTo(h.dataDir, ghost)).toEqual([]);
    // Per address: a mailbox cannot be flooded from many IPs (the signup and this request were 2 of its mails).
    for (let i = 2; i < accountMailQuota.max; i++)
      expect((await post('/auth/request-password-reset', { email: u.email }, newIp())).status).toBe(200);
    expect429(await post('/auth/request-password-reset', { email: u.email }, newIp()));
    // Signing up again with the address (which mails its owner) counts against the same budget.
    expect429(await post('/auth/signup', { email: u.email, password: 'a long password' }, newIp()));
  });
});

/** The reset request does the same work whether or not the account exists: it only queues a job. */
describe('password reset request without a worker', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('queues one job and sends nothing itself, for a known and an unknown address alike', async () => {
    const u = await createUser(h);
    const ghost = uniqueEmail('ghost');
    for (const email of [u.email, ghost]) {
      expect((await h.request('POST', '/auth/request-password-reset', { body: { email } })).status).toBe(200);
    }
    const jobs = await h.sql(`select j.payload from ${JOBS} j
      where j.task_identifier = 'users:password-reset-mail' order by j.id`);
    expect(jobs).toEqual([{ payload: { email: u.email } }, { payload: { email: ghost } }]);
    expect((await outboxTo(h.dataDir, u.email)).map((m) => m.subject)).toEqual(['Verify your email address']);
    expect(await h.sql(`select 1 from user_tokens where kind = 'reset_password'`)).toEqual([]);
  });
});

// Needs a Redis server (TEST_REDIS_URL), as the project rate-limit test through Redis.
describe.runIf(process.env.TEST_REDIS_URL)('credential throttles shared through Redis (REDIS_URL)', () => {
  let n1: Harness;
  let n2: Harness;
  beforeAll(async () => {
    const env = { AUTH_RATE_LIMIT_PER_ACCOUNT: '2', REDIS_URL: process.env.TEST_REDIS_URL! };
    n1 = await createHarness({ env });
    n2 = await createHarness({ env });
  });
  afterAll(async () => {
    await n1.close();
    await n2.close();
  });

  it('counts one account across two API nodes', async () => {
    // A fresh address: Redis keeps counters across runs for the 15-minute window.
    const email = uniqueEmail('redis');
    expect((await n1.request('POST', '/auth/login', { body: { email, password: 'wrong password' } })).status).toBe(401);
    expect((await n2.request('POST', '/auth/login', { body: { email, password: 'wrong password' } })).status).toBe(401);
    expect429(await n1.request('POST', '/auth/login', { body: { email, password: 'wrong password' } }));
    expect429(await n2.request('POST', '/auth/login', { body: { email, password: 'wrong password' } }));
    // The reset request has its own budget.
    expect((await n2.request('POST', '/auth/request-password-reset', { body: { email } })).status).toBe(200);
  });
});

/** TRUST_PROXY names the proxies whose X-Forwarded-For is believed: a client cannot pick its own address. */
describe('per-IP throttle behind a known proxy (TRUST_PROXY)', () => {
  let h: Harness;
  beforeAll(async () => {
    // The test client, on 127.0.0.1, plays the proxy.
    h = await createHarness({ env: { AUTH_RATE_LIMIT_PER_IP: '3', TRUST_PROXY: '127.0.0.1' } });
  });
  afterAll(() => h.close());

  it('counts the address the proxy saw, whatever the client wrote before it', async () => {
    const login = (xff: string) =>
      h.request('POST', '/auth/login', {
        body: { email: uniqueEmail(), password: 'whatever123' },
        headers: { 'x-forwarded-for': xff },
      });
    for (let i = 1; i <= 3; i++) expect((await login(`10.9.9.${i}, 203.0.113.77`)).status).toBe(401);
    expect429(await login('10.9.9.99, 203.0.113.77'));
    expect((await login('10.9.9.1, 203.0.113.78')).status).toBe(401);
  });
});
