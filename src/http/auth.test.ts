import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser } from '../../test/factories.js';
import { createHarness, type Harness, type Response } from '../../test/harness.js';
import { probeRoutes } from '../../test/probe-routes.js';

/** API keys (secret, public, rotation) and dashboard sessions with `X-Project-Id`, through HTTP. */
describe('authentication', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ routes: probeRoutes });
  });
  afterAll(() => h.close());

  const expect401 = (res: Response) => {
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_API_KEY', statusCode: 401 } });
    expect(res.body.error.requestId).toBe(res.headers.get('x-request-id'));
    expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
  };

  it('answers 401 INVALID_API_KEY for a missing key on every key-authenticated mode', async () => {
    for (const mode of ['public', 'secret', 'dashboard']) expect401(await h.request('GET', `/test/${mode}`));
  });

  it('answers 401 for a malformed Authorization header', async () => {
    const p = await createProject(h);
    for (const value of [`Token ${p.secretKey}`, 'Bearer', `Basic ${p.secretKey}`, `Bearer ${p.secretKey} extra`]) {
      expect401(await h.request('GET', '/test/secret', { headers: { authorization: value } }));
    }
  });

  it('answers 401 for unknown keys of either type and for keys without a prefix', async () => {
    const p = await createProject(h);
    expect401(await h.request('GET', '/test/secret', { key: 'sk_' + 'x'.repeat(43) }));
    expect401(await h.request('GET', '/test/public', { key: 'pk_' + 'x'.repeat(43) }));
    expect401(await h.request('GET', '/test/secret', { key: p.secretKey.slice(3) }));
    expect401(await h.request('GET', '/test/secret', { key: p.secretKey + 'x' }));
  });

  it('refuses the wrong key type: pk on secret endpoints, sk on /v1/track-style public endpoints', async () => {
    const p = await createProject(h);
    expect401(await h.request('GET', '/test/secret', { key: p.publicKey }));
    expect401(await h.request('GET', '/test/dashboard', { key: p.publicKey }));
    expect401(await h.request('GET', '/test/public', { key: p.secretKey }));
  });

  it('derives the project from the key', async () => {
    const a = await createProject(h);
    const b = await createProject(h);
    expect((await h.request('GET', '/test/secret', { key: a.secretKey })).body).toEqual({
      projectId: a.id,
      via: 'secret',
      // The secret key manages the project's resources as an ADMIN would.
      role: 'ADMIN',
    });
    expect((await h.request('GET', '/test/public', { key: b.publicKey })).body).toEqual({
      projectId: b.id,
      via: 'public',
      role: null,
    });
    expect((await h.request('GET', '/test/dashboard', { key: b.secretKey })).body.projectId).toBe(b.id);
  });

  it('rotation invalidates both old keys at once and the new ones work', async () => {
    const p = await createProject(h);
    const rot = await h.request('POST', `/users/@me/projects/${p.id}/regenerate-keys`, { cookie: p.owner.cookie });
    expect(rot.status).toBe(200);
    expect(rot.body).toEqual({
      id: p.id,
      public: expect.stringMatching(/^pk_[A-Za-z0-9_-]{43}$/),
      secret: expect.stringMatching(/^sk_[A-Za-z0-9_-]{43}$/),
    });
    expect(rot.body.secret).not.toBe(p.secretKey);
    expect401(await h.request('GET', '/test/secret', { key: p.secretKey }));
    expect401(await h.request('GET', '/test/public', { key: p.publicKey }));
    expect((await h.request('GET', '/test/secret', { key: rot.body.secret })).status).toBe(200);
    expect((await h.request('GET', '/test/public', { key: rot.body.public })).status).toBe(200);
  });

  it('stores only hashes of keys', async () => {
    const p = await createProject(h);
    const [row] = await h.sql('select * from projects where id = $1', [p.id]);
    expect(JSON.stringify(row)).not.toContain(p.secretKey);
    expect(JSON.stringify(row)).not.toContain(p.publicKey);
  });

  it('accepts a session cookie with X-Project-Id of a project the user is a member of', async () => {
    const p = await createProject(h);
    const res = await h.request('GET', '/test/dashboard', {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ projectId: p.id, via: 'session', role: 'OWNER' });
  });

  it('answers 404 to a session user who is not a member of the project', async () => {
    const p = await createProject(h);
    const stranger = await createUser(h);
    const res = await h.request('GET', '/test/dashboard', {
      cookie: stranger.cookie,
      headers: { 'x-project-id': p.id },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    const path = await h.request('GET', `/projects/${p.id}/members`, { cookie: stranger.cookie });
    expect(path.status).toBe(404);
  });

  it('answers 400 for a session without X-Project-Id and 401 for a forged session', async () => {
    const p = await createProject(h);
    const res = await h.request('GET', '/test/dashboard', { cookie: p.owner.cookie });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    const forged = p.owner.cookie.slice(0, -4) + 'AAAA';
    expect401(await h.request('GET', '/test/dashboard', { cookie: forged, headers: { 'x-project-id': p.id } }));
    const me = await h.request('GET', '/users/@me', { cookie: forged });
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers 403 PROJECT_DISABLED for a disabled project', async () => {
    const p = await createProject(h);
    await h.sql('update projects set disabled = true where id = $1', [p.id]);
    const res = await h.request('GET', '/test/secret', { key: p.secretKey });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('PROJECT_DISABLED');
  });

  it('needs no credential for GET /config', async () => {
    const res = await h.request('GET', '/config');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      signups: true,
      billing: { enabled: false },
      oauth: { google: false, github: false },
      storage: 'disk',
      version: expect.any(String),
    });
  });
});
