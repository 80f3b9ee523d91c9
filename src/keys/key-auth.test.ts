import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { eventually } from '../../test/sending-fixtures.js';

/** A scoped key of `p` with `scopes` (and the rest of `extra`), made through the API. */
async function makeKey(h: Harness, p: TestProject, scopes: string[], extra: Record<string, unknown> = {}) {
  const res = await h.request('POST', `/projects/${p.id}/api-keys`, {
    cookie: p.owner.cookie,
    body: { name: `key ${scopes.join(' ')}`, scopes, ...extra },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; key: string };
}

const track = { email: 'visitor@example.test', event: 'page-viewed' };
const send = { to: 'someone@example.test', subject: 'Hi', body: '<p>Hi</p>' };

/** What scoped keys may do (issue 39): scopes, addresses, lifetime, deletion, member routes. */
describe('scoped API keys at the door', () => {
  let h: Harness;
  let p: TestProject;

  beforeAll(async () => {
    // The test client on 127.0.0.1 plays the one proxy in front: X-Forwarded-For is the client.
    h = await createHarness({ env: { TRUST_PROXY: '1' } });
    p = await createProject(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a key with `track` gets 403 naming the scope on /v1/send and every other scope, and works on /v1/track', async () => {
    const { key, id } = await makeKey(h, p, ['track']);
    const refused = await h.request('POST', '/v1/send', { key, body: send });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message: 'This key lacks the "send" scope',
      details: { scope: 'send' },
    });
    for (const [method, path, scope] of [
      ['GET', '/contacts', 'contacts:read'],
      ['POST', '/contacts', 'contacts:write'],
      ['GET', '/campaigns', 'campaigns:read'],
      ['GET', '/analytics/timeseries', 'analytics:read'],
      ['POST', '/webhook-endpoints', 'webhooks:write'],
    ]) {
      const res = await h.request(method, path, { key, body: method === 'GET' ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.details, `${method} ${path}`).toEqual({ scope });
    }
    const ok = await h.request('POST', '/v1/track', { key, body: track });
    expect(ok.status, ok.text).toBe(200);
    expect(
      await h.sql('select count(*)::int as n from events where project_id = $1 and name = $2', [p.id, 'page-viewed']),
    ).toEqual([{ n: 1 }]);
    // The use is recorded (once: later uses within the minute write nothing).
    await eventually(
      async () => (await h.sql('select last_used_at from api_keys where id = $1', [id]))[0].last_used_at,
      5_000,
      'last_used_at',
    );
  });

  it('a key with a scope calls the routes of that scope, with the secret key role, and nothing else', async () => {
    const { key } = await makeKey(h, p, ['contacts:write']);
    const made = await h.request('POST', '/contacts', { key, body: { email: 'scoped@example.test' } });
    expect(made.status, made.text).toBe(201);
    // Writing does not imply reading.
    const read = await h.request('GET', `/contacts/${made.body.id}`, { key });
    expect(read.status).toBe(403);
    expect(read.body.error.message).toBe('This key lacks the "contacts:read" scope');
    // OWNER/ADMIN-only resource routes are open to the key (ADMIN), within its scopes.
    const topic = await h.request('POST', '/topics', { key, body: { name: 'News', default: 'opt-out' } });
    expect(topic.status, topic.text).toBe(201);
  });

  it('member routes and the read-only project overviews refuse scoped keys with 403; session routes ask for a session', async () => {
    const { key } = await makeKey(h, p, ['contacts:read', 'send', 'track', 'analytics:read']);
    for (const path of [`/projects/${p.id}/members`, `/projects/${p.id}/api-keys`, `/projects/${p.id}/setup-state`]) {
      const res = await h.request('GET', path, { key });
      expect(res.status, path).toBe(403);
      expect(res.body.error.code, path).toBe('FORBIDDEN');
      expect(res.body.error.message, path).toContain('Scoped API keys cannot call');
    }
    const rotate = await h.request('POST', `/users/@me/projects/${p.id}/regenerate-keys`, { key });
    expect(rotate.status).toBe(403);
    expect((await h.request('GET', '/users/@me', { key })).status).toBe(401);
  });

  it('refuses an address outside allowedIps with 403 and serves one inside (IPv4 and IPv6)', async () => {
    const { key } = await makeKey(h, p, ['contacts:read'], { allowedIps: ['203.0.113.0/24', '2001:db8::/32'] });
    const from = (ip: string) => h.request('GET', '/contacts', { key, headers: { 'x-forwarded-for': ip } });
    expect((await from('203.0.113.77')).status).toBe(200);
    expect((await from('2001:db8::5')).status).toBe(200);
    for (const ip of ['198.51.100.1', '2001:db9::1']) {
      const res = await from(ip);
      expect(res.status, ip).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', details: { ip } });
    }
    // Without the header the client is the proxy itself (127.0.0.1): outside too.
    expect((await h.request('GET', '/contacts', { key })).status).toBe(403);
  });

  it('refuses an expired key with 401 saying it expired', async () => {
    const { key } = await makeKey(h, p, ['track'], { expiresAt: new Date(Date.now() + 3600_000).toISOString() });
    expect((await h.request('POST', '/v1/track', { key, body: track })).status).toBe(200);
    h.clock.advance(3600_000 + 1000);
    try {
      const res = await h.request('POST', '/v1/track', { key, body: track });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_API_KEY');
      expect(res.body.error.message).toMatch(/expired/);
    } finally {
      h.clock.set(new Date());
    }
  });

  it('stops a key deleted by another process as soon as the deletion commits (NOTIFY empties the cache)', async () => {
    const { key, id } = await makeKey(h, p, ['contacts:read']);
    // Cached now.
    expect((await h.request('GET', '/contacts', { key })).status).toBe(200);
    expect((await h.request('GET', '/contacts', { key })).status).toBe(200);
    // Straight in the database: this process's own invalidation does not run, only the notification.
    await h.sql('delete from api_keys where id = $1', [id]);
    await eventually(async () => (await h.request('GET', '/contacts', { key })).status === 401, 5_000, '401');
  });

  it("a disabled project's keys are refused with 403 PROJECT_DISABLED", async () => {
    const q = await createProject(h);
    const { key } = await makeKey(h, q, ['contacts:read']);
    expect((await h.request('GET', '/contacts', { key })).status).toBe(200);
    // The trigger of migration 0010 empties the key caches when `disabled` changes.
    await h.sql('update projects set disabled = true where id = $1', [q.id]);
    await eventually(
      async () => (await h.request('GET', '/contacts', { key })).body?.error?.code === 'PROJECT_DISABLED',
      5_000,
      'PROJECT_DISABLED',
    );
  });

  it('an unknown or malformed psk_ key is 401, never a hint of what exists', async () => {
    for (const key of ['psk_nope', `psk_${'A'.repeat(43)}`]) {
      const res = await h.request('GET', '/contacts', { key });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_API_KEY');
    }
  });
});

describe('scoped keys and the rate limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("count against the project's budget, shared with its secret key", async () => {
    const p = await createProject(h);
    const { key } = await makeKey(h, p, ['contacts:read']);
    for (let i = 0; i < 3; i++) expect((await h.request('GET', '/contacts', { key: p.secretKey })).status).toBe(200);
    const res = await h.request('GET', '/contacts', { key });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  });
});
