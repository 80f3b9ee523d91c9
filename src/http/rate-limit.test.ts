import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { probeRoutes } from '../../test/probe-routes.js';

/** Per-project rate limit: the `RateLimit-*` headers, 429 with `Retry-After`, what is not counted. */
describe('rate limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { RATE_LIMIT_PER_MINUTE: '5' }, routes: probeRoutes });
  });
  afterAll(() => h.close());

  it('trips at the configured count for one project and not for another', async () => {
    const a = await createProject(h);
    const b = await createProject(h);
    for (let i = 1; i <= 5; i++) {
      const res = await h.request('GET', '/test/secret', { key: a.secretKey });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(5 - i));
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
    const over = await h.request('GET', '/test/secret', { key: a.secretKey });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(over.body.error.requestId).toBe(over.headers.get('x-request-id'));
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // The public key shares its project's budget (one budget across all endpoints).
    expect((await h.request('GET', '/test/public', { key: a.publicKey })).status).toBe(429);
    // Another project is untouched.
    const other = await h.request('GET', '/test/secret', { key: b.secretKey });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('4');
  });

  it('counts session calls to /users/@me* against their user, never against a project', async () => {
    const p = await createProject(h);
    const used = (await h.request('GET', '/users/@me', { cookie: p.owner.cookie })).headers.get('ratelimit-remaining');
    for (let i = 0; i < Number(used); i++)
      expect((await h.request('GET', '/users/@me', { cookie: p.owner.cookie })).status).toBe(200);
    expect((await h.request('GET', '/users/@me', { cookie: p.owner.cookie })).status).toBe(429);
    expect((await h.request('GET', '/test/secret', { key: p.secretKey })).status).toBe(200);
  });

  it('answers 401, not 429, for unknown keys (nothing to count against)', async () => {
    for (let i = 0; i < 7; i++) expect((await h.request('GET', '/test/secret', { key: 'sk_nope' })).status).toBe(401);
  });
});

// Needs a Redis server, which a fresh machine does not have: `.ci/run` sets TEST_REDIS_URL to the one on
// 127.0.0.1:6379 so CI always runs it; `npm test` alone runs it when you set TEST_REDIS_URL.
describe.runIf(process.env.TEST_REDIS_URL)('rate limit shared through Redis (REDIS_URL)', () => {
  let n1: Harness;
  let n2: Harness;
  beforeAll(async () => {
    const env = { RATE_LIMIT_PER_MINUTE: '4', REDIS_URL: process.env.TEST_REDIS_URL! };
    n1 = await createHarness({ env, routes: probeRoutes });
    n2 = await createHarness({ env, routes: probeRoutes });
  });
  afterAll(async () => {
    await n1.close();
    await n2.close();
  });

  it('counts one project across two API nodes', async () => {
    // The two harnesses have separate databases; give the project the same key hash on both.
    const p = await createProject(n1);
    const [row] = await n1.sql('select * from projects where id = $1', [p.id]);
    await n2.sql(
      `insert into projects (id, name, public_key_hash, secret_key_hash, public_key_hint, secret_key_hint) values ($1, $2, $3, $4, $5, $6)`,
      [row.id, row.name, row.public_key_hash, row.secret_key_hash, row.public_key_hint, row.secret_key_hint],
    );
    expect((await n1.request('GET', '/test/secret', { key: p.secretKey })).status).toBe(200);
    expect((await n2.request('GET', '/test/secret', { key: p.secretKey })).status).toBe(200);
    expect((await n1.request('GET', '/test/secret', { key: p.secretKey })).status).toBe(200);
    const fourth = await n2.request('GET', '/test/secret', { key: p.secretKey });
    expect(fourth.status).toBe(200);
    expect(fourth.headers.get('ratelimit-remaining')).toBe('0');
    expect((await n1.request('GET', '/test/secret', { key: p.secretKey })).status).toBe(429);
    expect((await n2.request('GET', '/test/secret', { key: p.secretKey })).status).toBe(429);
  });
});
