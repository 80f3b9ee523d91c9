import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { contactToken } from '../emails/render/tokens.js';
import { inputBudget } from '../lib/byte-budget.js';

const EVIL = { origin: 'https://evil.example' };
const CROSS = { 'sec-fetch-site': 'cross-site' };

/** Cross-site requests with the dashboard's cookie (finding 4 of "Hardening II"), HSTS and the pages' headers (12). */
describe('cross-site request protection', () => {
  let h: Harness;
  let p: TestProject;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
  });
  afterAll(() => h?.close());

  const keysWork = async (project: TestProject) =>
    (await h.request('GET', '/contacts', { key: project.secretKey })).status === 200;

  it('refuses a cross-origin text/plain POST with the session cookie, and changes nothing', async () => {
    for (const headers of [
      { ...EVIL, 'content-type': 'text/plain' },
      { ...CROSS, 'content-type': 'text/plain' },
      { 'sec-fetch-site': 'same-site', 'content-type': 'text/plain' },
    ]) {
      const res = await h.request('POST', `/users/@me/projects/${p.id}/regenerate-keys`, {
        cookie: p.owner.cookie,
        headers,
        body: 'x',
        raw: true,
      });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringMatching(/^Cross-site request refused/),
      });
    }
    expect(await keysWork(p)).toBe(true);
  });

  it('refuses a cross-site empty-body POST that would wipe the project; its data stays', async () => {
    const c = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'keep@example.test' } });
    expect(c.status).toBe(201);
    for (const headers of [EVIL, CROSS]) {
      const res = await h.request('POST', `/users/@me/projects/${p.id}/reset`, { cookie: p.owner.cookie, headers });
      expect(res.status).toBe(403);
    }
    expect((await h.request('GET', `/contacts/${c.body.id}`, { key: p.secretKey })).status).toBe(200);
  });

  it('lets the dashboard (same origin) and non-browser clients (no Origin) through; a text/plain body is 400', async () => {
    const q = await createProject(h);
    const same = await h.request('GET', '/users/@me', {
      cookie: q.owner.cookie,
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(same.status).toBe(200);
    const fromPage = await h.request('PATCH', `/users/@me/projects/${q.id}`, {
      cookie: q.owner.cookie,
      headers: { 'sec-fetch-site': 'same-origin', origin: h.url },
      body: { name: 'Renamed' },
    });
    expect(fromPage.status).toBe(200);
    const curl = await h.request('PATCH', `/users/@me/projects/${q.id}`, {
      cookie: q.owner.cookie,
      body: { name: 'Again' },
    });
    expect(curl.status).toBe(200);
    const plain = await h.request('POST', `/users/@me/projects/${q.id}/regenerate-keys`, {
      cookie: q.owner.cookie,
      headers: { 'content-type': 'text/plain' },
      body: 'x',
      raw: true,
    });
    expect(plain.status).toBe(400);
    expect(await keysWork(q)).toBe(true);
  });

  it('refuses a cross-site login and a cross-site GET /auth/logout; the same-origin ones work', async () => {
    const u = await createUser(h);
    expect(
      (await h.request('POST', '/auth/login', { headers: EVIL, body: { email: u.email, password: u.password } }))
        .status,
    ).toBe(403);
    expect((await h.request('GET', '/auth/logout', { cookie: u.cookie, headers: CROSS })).status).toBe(403);
    expect(
      (
        await h.request('POST', '/auth/login', {
          headers: { origin: h.url },
          body: { email: u.email, password: u.password },
        })
      ).status,
    ).toBe(200);
    expect(
      (await h.request('GET', '/auth/logout', { cookie: u.cookie, headers: { 'sec-fetch-site': 'same-origin' } }))
        .status,
    ).toBe(200);
  });

  it('still takes a one-click unsubscribe (RFC 8058) from anywhere, with the page locked down', async () => {
    const c = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'oneclick@example.test', subscribed: true },
    });
    const token = contactToken(h.deps.secret, c.body.id);
    const res = await h.request('POST', `/unsubscribe/${token}`, {
      cookie: p.owner.cookie,
      headers: { ...CROSS, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
      raw: true,
    });
    expect(res.status).toBe(200);
    expect((await h.request('GET', `/contacts/${c.body.id}`, { key: p.secretKey })).body.subscribed).toBe(false);
    const page = await h.request('GET', `/manage/${token}`);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });

  it('sends HSTS only when the public URL is https', async () => {
    expect((await h.request('GET', '/health')).headers.get('strict-transport-security')).toBeNull();
    const secure = await createHarness({ env: { PUBLIC_URL: 'https://pigeon.example' } });
    try {
      expect((await secure.request('GET', '/health')).headers.get('strict-transport-security')).toBe(
        'max-age=31536000',
      );
    } finally {
      await secure.close();
    }
  });
});

/** Bodies bounded before they are read (finding 7 of "Hardening II"). */
describe('request bodies', () => {
  let h: Harness;
  let p: TestProject;
  beforeAll(async () => {
    h = await createHarness({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
    p = await createProject(h);
  });
  afterAll(() => h?.close());

  /** Sends the headers of a `/v1/send` of `length` bytes and at most `sent` of them; answers the response or null. */
  function partialSend(length: number, sent = 0) {
    const u = new URL(h.url);
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path: '/v1/send',
      method: 'POST',
      headers: {
        authorization: `Bearer ${p.secretKey}`,
        'content-type': 'application/json',
        'content-length': String(length),
      },
    });
    const answer = new Promise<{ status: number; body: string } | null>((resolve) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', () => resolve(null));
    });
    req.flushHeaders();
    if (sent) req.write(Buffer.alloc(sent, ' '));
    return { answer, abort: () => req.destroy() };
  }

  it('refuses a 50 MB /v1/send by its Content-Length, before reading it', async () => {
    const { answer, abort } = partialSend(50 * 1024 * 1024);
    const res = await answer; // not one byte of the body was sent
    abort();
    expect(res?.status).toBe(413);
    expect(JSON.parse(res!.body).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('holds concurrent large bodies within the input budget: one that does not fit is 503, and the budget comes back', async () => {
    const size = 20 * 1024 * 1024;
    const held = [partialSend(size, 1024), partialSend(size, 1024), partialSend(size, 1024)];
    await expect.poll(() => inputBudget.inUse).toBe(3 * size);
    const late = partialSend(size);
    const extra = await late.answer;
    late.abort();
    expect(extra?.status).toBe(503);
    expect(JSON.parse(extra!.body).error.message).toMatch(/too many large requests/);
    for (const r of held) r.abort();
    await expect.poll(() => inputBudget.inUse).toBe(0);
    const ok = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'x@example.test', subject: 'Hi', body: 'x'.repeat(100_000) },
    });
    expect(ok.status).not.toBe(503);
  });
});
