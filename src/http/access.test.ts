import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject, type TestUser } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

/**
 * Who may manage a project (`/users/@me*` takes the session;
 * OWNER and ADMIN manage members and keys; only OWNER deletes, resets or bills).
 */
describe('project management access', () => {
  let h: Harness;
  let p: TestProject;
  let admin: TestUser;
  let member: TestUser;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h, await createVerifiedUser(h)); // confirmed: it invites
    admin = await createVerifiedUser(h);
    member = await createVerifiedUser(h);
    for (const [u, role] of [
      [admin, 'ADMIN'],
      [member, 'MEMBER'],
    ] as const) {
      const res = await h.request('POST', `/projects/${p.id}/members`, {
        cookie: p.owner.cookie,
        body: { email: u.email, role },
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => h.close());

  const memberRoutes = (id: string, userId: string, invitationId: string): Array<[string, string, unknown?]> => [
    ['PATCH', `/users/@me/projects/${id}`, { name: 'Taken' }],
    ['DELETE', `/users/@me/projects/${id}`],
    ['POST', `/users/@me/projects/${id}/regenerate-keys`],
    ['POST', `/users/@me/projects/${id}/reset`],
    ['GET', `/users/@me/projects/${id}/security`],
    ['GET', `/users/@me/projects/${id}/billing-limits`],
    ['PUT', `/users/@me/projects/${id}/billing-limits`, { transactional: 1, campaigns: 1, workflows: 1 }],
    ['GET', `/users/@me/projects/${id}/billing-consumption`],
    ['POST', `/users/@me/projects/${id}/checkout`],
    ['GET', `/projects/${id}/members`],
    ['POST', `/projects/${id}/members`, { email: 'leak@example.test', role: 'ADMIN' }],
    ['PATCH', `/projects/${id}/members/${userId}`, { role: 'OWNER' }],
    ['DELETE', `/projects/${id}/members/${userId}`],
    ['GET', `/projects/${id}/invitations`],
    ['POST', `/projects/${id}/invitations/${invitationId}/resend`],
    ['DELETE', `/projects/${id}/invitations/${invitationId}`],
  ];

  it('answers 401 to the secret key on every member-management and /users/@me/projects/:id route', async () => {
    const invite = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: 'pending@example.test', role: 'MEMBER' },
    });
    expect(invite.status).toBe(202);
    for (const [method, path, body] of memberRoutes(p.id, member.id, invite.body.invitationId)) {
      const res = await h.request(method, path, { key: p.secretKey, body });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.error.code, `${method} ${path}`).toBe('UNAUTHORIZED');
    }
    // Nothing changed: no member added, keys not rotated, the project is still there, the member stays.
    const [row] = await h.sql('select name, secret_key_hint from projects where id = $1', [p.id]);
    expect(row).toEqual({ name: 'Test project', secret_key_hint: p.secretKey.slice(-4) });
    expect(await h.sql(`select count(*)::int as n from invitations where email = 'leak@example.test'`)).toEqual([
      { n: 0 },
    ]);
    const members = await h.sql('select user_id, role from memberships where project_id = $1 order by role', [p.id]);
    expect(members).toEqual([
      { user_id: admin.id, role: 'ADMIN' },
      { user_id: member.id, role: 'MEMBER' },
      { user_id: p.owner.id, role: 'OWNER' },
    ]);
    // The key still works where it belongs.
    expect((await h.request('GET', '/contacts', { key: p.secretKey })).status).toBe(200);
  });

  it('does not let a secret key add its holder as a member or rotate the keys, even with the holder signed in', async () => {
    const holder = await createVerifiedUser(h);
    const add = await h.request('POST', `/projects/${p.id}/members`, {
      key: p.secretKey,
      cookie: holder.cookie,
      body: { email: holder.email, role: 'ADMIN' },
    });
    expect(add.status).toBe(404);
    const rotate = await h.request('POST', `/users/@me/projects/${p.id}/regenerate-keys`, {
      key: p.secretKey,
      cookie: holder.cookie,
    });
    expect(rotate.status).toBe(404);
    expect(await h.sql('select 1 from memberships where user_id = $1', [holder.id])).toEqual([]);
    expect((await h.request('GET', '/contacts', { key: p.secretKey })).status).toBe(200);
  });

  it('keeps the secret key on the read-only /projects/:id overviews (setup-state, security)', async () => {
    expect((await h.request('GET', `/projects/${p.id}/setup-state`, { key: p.secretKey })).status).toBe(200);
    const sec = await h.request('GET', `/projects/${p.id}/security`, { key: p.secretKey });
    expect(sec.status).toBe(200);
    expect(sec.body.members).toEqual({ owners: 1, admins: 1, members: 1 });
  });

  // Each role-restricted route with a body the schema refuses (wrong types, unknown role).
  const invalidBodies = (id: string, userId: string): Array<[string, string, unknown, 'ADMIN' | 'OWNER']> => [
    ['PATCH', `/users/@me/projects/${id}`, { name: 42, tracking: 'SOMETIMES' }, 'ADMIN'],
    ['POST', `/projects/${id}/members`, { email: 'not an email', role: 'KING' }, 'ADMIN'],
    ['PATCH', `/projects/${id}/members/${userId}`, { role: 'KING' }, 'ADMIN'],
    ['PUT', `/users/@me/projects/${id}/billing-limits`, { transactional: -1 }, 'OWNER'],
  ];

  it('answers 403 to a MEMBER whatever the body of an admin route: authorization comes before validation', async () => {
    for (const [method, path, body] of invalidBodies(p.id, admin.id)) {
      const res = await h.request(method, path, { cookie: member.cookie, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      // The answer names no field of the schema.
      expect(res.body.error.errors).toBeUndefined();
      // Broken JSON too: the body is not even parsed.
      const broken = await h.request(method, path, {
        cookie: member.cookie,
        body: '{"role":',
        raw: true,
        headers: { 'content-type': 'application/json' },
      });
      expect(broken.status, `${method} ${path} broken JSON`).toBe(403);
    }
    for (const [method, path] of [
      ['DELETE', `/users/@me/projects/${p.id}`],
      ['POST', `/users/@me/projects/${p.id}/reset`],
      ['POST', `/users/@me/projects/${p.id}/regenerate-keys`],
    ]) {
      expect(
        (await h.request(method, path, { cookie: member.cookie, body: { anything: true } })).status,
        `${method} ${path}`,
      ).toBe(403);
    }
    // An ADMIN may use the ADMIN routes, so the same bodies get the validation answer; OWNER-only
    // routes answer the ADMIN 403 and the OWNER 422.
    for (const [method, path, body, needs] of invalidBodies(p.id, admin.id)) {
      const asAdmin = await h.request(method, path, { cookie: admin.cookie, body });
      expect(asAdmin.status, `${method} ${path} as ADMIN`).toBe(needs === 'ADMIN' ? 422 : 403);
      if (needs === 'ADMIN') expect(asAdmin.body.error.code).toBe('VALIDATION_ERROR');
      const asOwner = await h.request(method, path, { cookie: p.owner.cookie, body });
      expect(asOwner.status, `${method} ${path} as OWNER`).toBe(422);
      expect(asOwner.body.error.errors.length).toBeGreaterThan(0);
    }
  });

  it('answers 404, not 403, to a signed-in user who is not a member, whatever the body', async () => {
    const stranger = await createVerifiedUser(h);
    const res = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: stranger.cookie,
      body: { role: 'KING' },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });
});
