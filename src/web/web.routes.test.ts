import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';

/** A Fastify with the zod compilers the service uses (the routes declare zod response schemas). */
function bare(): FastifyInstance {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  return app as unknown as FastifyInstance;
}
import { WEB_BASE, webRoutesFrom } from './web.routes.js';

const INDEX =
  '<!doctype html><html><head><script type="module" src="/app/assets/main-abc123.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

describe('dashboard serving over a bundle', () => {
  let app: FastifyInstance;
  let base: string;
  let dist: string;

  beforeAll(async () => {
    // The bundle sits in a folder of its own beside a secret file that path traversal must not reach
    // (a fixed name in the shared temp folder would belong to whichever user ran the tests first).
    base = await mkdtemp(path.join(tmpdir(), 'pigeon-web-'));
    dist = path.join(base, 'dist');
    await mkdir(dist);
    await mkdir(path.join(dist, 'assets'));
    await writeFile(path.join(dist, 'index.html'), INDEX);
    await writeFile(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await writeFile(path.join(dist, 'assets', 'main-abc123.js'), SCRIPT);
    await writeFile(path.join(dist, 'assets', 'main-abc123.js.gz'), gzipSync(SCRIPT));
    await writeFile(path.join(base, 'pigeon-secret.txt'), 'TOP-SECRET-CONTENT');
    app = bare();
    await app.register(webRoutesFrom(dist));
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await rm(base, { recursive: true, force: true });
  });

  it('answers / with a redirect to the dashboard', async () => {
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(WEB_BASE);
  });

  it('answers every client route with index.html, never cached, with the page security headers', async () => {
    for (const url of [
      '/app',
      '/app/',
      '/app/login?next=%2Fp%2F1',
      '/app/p/0192/domains',
      '/app/p/0192/settings/members',
    ]) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.body, url).toBe(INDEX);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('serves hashed assets for a year, precompressed when the client accepts gzip', async () => {
    const plain = await app.inject({ url: '/app/assets/main-abc123.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toMatch(/javascript/);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.body).toBe(SCRIPT);
    const gz = await app.inject({ url: '/app/assets/main-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.rawPayload.length).toBeLessThan(SCRIPT.length / 10);
    const other = await app.inject({ url: '/app/favicon.svg' });
    expect(other.statusCode).toBe(200);
    expect(other.headers['cache-control']).toBe('no-cache');
  });

  it('answers 404 for a missing asset instead of the page (an old hash must not get HTML)', async () => {
    const res = await app.inject({ url: '/app/assets/main-old999.js' });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('<!doctype html>');
  });

  it('never serves a file outside the bundle', async () => {
    for (const url of [
      '/app/../pigeon-secret.txt',
      '/app/%2e%2e/pigeon-secret.txt',
      '/app/..%2fpigeon-secret.txt',
      '/app/assets/..%2f..%2fpigeon-secret.txt',
    ]) {
      const res = await app.inject({ url });
      expect(res.body, url).not.toContain('TOP-SECRET-CONTENT');
    }
  });

  it('redirects the links of account mails to the dashboard pages, keeping the token', async () => {
    const verify = await app.inject({ url: '/verify-email?token=abc%2Bdef' });
    expect(verify.statusCode).toBe(302);
    expect(verify.headers.location).toBe('/app/verify-email?token=abc%2Bdef');
    const reset = await app.inject({ url: '/reset-password?token=xyz' });
    expect(reset.headers.location).toBe('/app/reset-password?token=xyz');
    const invitation = await app.inject({ url: '/invitations/0b4a3c1e-7f43-4c55-9d53-3a2f1c0de001' });
    expect(invitation.statusCode).toBe(302);
    expect(invitation.headers.location).toBe('/app/invitations/0b4a3c1e-7f43-4c55-9d53-3a2f1c0de001');
  });
});

describe('dashboard serving without a built bundle', () => {
  it('answers a page that says how to build it, while the rest of the server works', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'pigeon-nodist-'));
    const app = bare();
    app.get('/health', async () => ({ ok: true }));
    await app.register(webRoutesFrom(path.join(empty, 'dist')));
    try {
      const res = await app.inject({ url: '/app/p/1/domains' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('npm run build -w web');
      expect((await app.inject({ url: '/health' })).json()).toEqual({ ok: true });
    } finally {
      await app.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('the dashboard inside the real server', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  it('leaves API paths to the API: GET /contacts answers JSON, even to a browser asking for HTML', async () => {
    const p = await createProject(h);
    const asBrowser = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'x-project-id': p.id };
    const res = await h.request('GET', '/contacts', { cookie: p.owner.cookie, headers: asBrowser });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toHaveProperty('data');
    const anonymous = await h.request('GET', '/contacts', { headers: { accept: 'text/html' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('INVALID_API_KEY');
  });

  it('serves the dashboard at /app/ with no credential, and keeps it out of the API reference', async () => {
    const page = await h.request('GET', '/app/p/x/domains');
    expect([200, 503]).toContain(page.status);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const root = await h.request('GET', '/');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/app/');
    const link = await h.request('GET', '/verify-email?token=abc');
    expect(link.status).toBe(302);
    expect(link.headers.get('location')).toBe('/app/verify-email?token=abc');
    const doc = await h.request('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths).filter((p: string) => p === '/' || p.startsWith('/app'))).toEqual([]);
  });
});
