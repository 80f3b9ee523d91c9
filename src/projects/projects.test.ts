import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, createVerifiedUser } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';

/** Projects, keys and members: create, rename, delete, reset, roles, setup state and security. */
describe('projects', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('creates a project with its full keys once, then lists it with masked keys and the role', async () => {
    const u = await createUser(h);
    const res = await h.request('POST', '/users/@me/projects', { cookie: u.cookie, body: { name: 'Shop' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Shop',
      public: expect.stringMatching(/^pk_/),
      secret: expect.stringMatching(/^sk_/),
      createdAt: expect.any(String),
    });
    const list = await h.request('GET', '/users/@me/projects', { cookie: u.cookie });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: res.body.id,
        name: 'Shop',
        role: 'OWNER',
        tracking: 'ENABLED',
        brandColor: null,
        timeZone: 'UTC',
        disabled: false,
        retention: { eventsDays: null, emailContentsDays: null, emailsDays: null },
        require2fa: false,
        createdAt: res.body.createdAt,
        public: `pk_…${res.body.public.slice(-4)}`,
        publicKey: res.body.public,
        secret: `sk_…${res.body.secret.slice(-4)}`,
      },
    ]);
    expect((await h.request('POST', '/users/@me/projects', { cookie: u.cookie, body: { name: '' } })).status).toBe(422);
    expect((await h.request('POST', '/users/@me/projects', { body: { name: 'x' } })).status).toBe(401);
  });

  it('renames a project and sets its tracking mode', async () => {
    const p = await createProject(h);
    const res = await h.request('PATCH', `/users/@me/projects/${p.id}`, {
      cookie: p.owner.cookie,
      body: { name: 'Renamed', tracking: 'MARKETING_ONLY' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: p.id, name: 'Renamed', tracking: 'MARKETING_ONLY' });
    const [row] = await h.sql('select name, tracking from projects where id = $1', [p.id]);
    expect(row).toEqual({ name: 'Renamed', tracking: 'MARKETING_ONLY' });
  });

  it('deletes a project (OWNER only): 204, then its keys stop working', async () => {
    const p = await createProject(h);
    const admin = await createVerifiedUser(h);
    await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: admin.email, role: 'ADMIN' },
    });
    const denied = await h.request('DELETE', `/users/@me/projects/${p.id}`, { cookie: admin.cookie });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    // Project management takes the session only: the secret key is not a credential here at all.
    const byKey = await h.request('DELETE', `/users/@me/projects/${p.id}`, { key: p.secretKey });
    expect(byKey.status).toBe(401);
    expect(byKey.body.error.code).toBe('UNAUTHORIZED');
    const res = await h.request('DELETE', `/users/@me/projects/${p.id}`, { cookie: p.owner.cookie });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await h.sql('select id from projects where id = $1', [p.id])).toEqual([]);
    expect((await h.request('GET', `/projects/${p.id}/security`, { key: p.secretKey })).status).toBe(401);
    expect((await h.request('DELETE', `/users/@me/projects/${p.id}`, { cookie: p.owner.cookie })).status).toBe(404);
  });

  it('manages members with roles: OWNER and ADMIN add, MEMBER cannot rotate keys', async () => {
    const p = await createProject(h);
    const admin = await createVerifiedUser(h);
    const member = await createVerifiedUser(h);
    const add = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: admin.email, role: 'ADMIN' },
    });
    expect(add.status).toBe(201);
    expect(add.body).toEqual({ userId: admin.id, email: admin.email, role: 'ADMIN', createdAt: expect.any(String) });
    const byAdmin = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: admin.cookie,
      body: { email: member.email, role: 'MEMBER' },
    });
    expect(byAdmin.status).toBe(201);
    expect(
      (
        await h.request('POST', `/projects/${p.id}/members`, {
          cookie: admin.cookie,
          body: { email: member.email, role: 'MEMBER' },
        })
      ).status,
    ).toBe(409);
    // An address without an account gets a pending invitation, not a membership (invitations.test.ts).
    const invited = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: admin.cookie,
      body: { email: 'nobody@example.test', role: 'MEMBER' },
    });
    expect(invited.status).toBe(202);
    expect(invited.body).toMatchObject({ email: 'nobody@example.test', role: 'MEMBER', status: 'pending' });
    expect(
      (
        await h.request('POST', `/projects/${p.id}/members`, {
          cookie: admin.cookie,
          body: { email: member.email, role: 'OWNER' },
        })
      ).status,
    ).toBe(422);

    const list = await h.request('GET', `/projects/${p.id}/members`, { cookie: member.cookie });
    expect(list.body.map((m: Json) => [m.email, m.role])).toEqual([
      [p.owner.email, 'OWNER'],
      [admin.email, 'ADMIN'],
      [member.email, 'MEMBER'],
    ]);

    expect(
      (await h.request('POST', `/users/@me/projects/${p.id}/regenerate-keys`, { cookie: member.cookie })).status,
    ).toBe(403);
    expect(
      (
        await h.request('POST', `/projects/${p.id}/members`, {
          cookie: member.cookie,
          body: { email: admin.email, role: 'MEMBER' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await h.request('POST', `/users/@me/projects/${p.id}/regenerate-keys`, { cookie: admin.cookie })).status,
    ).toBe(200);

    // The member sees the project in their list, with their role.
    const theirs = await h.request('GET', '/users/@me/projects', { cookie: member.cookie });
    expect(theirs.body).toEqual([expect.objectContaining({ id: p.id, role: 'MEMBER' })]);
  });

  it('rotates the secret key alone: the old one is refused at once, the public key and other projects keep working', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const track = (key: string) =>
      h.request('POST', '/v1/track', { key, body: { email: 'k@example.test', event: 'visited' } });
    // Both keys answered once, so the process has them cached.
    expect((await h.request('GET', '/contacts', { key: p.secretKey })).status).toBe(200);
    expect((await track(p.publicKey)).status).toBe(200);

    const res = await h.request('POST', `/users/@me/projects/${p.id}/regenerate-key`, {
      cookie: p.owner.cookie,
      body: { key: 'secret' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: p.id, key: 'secret', value: expect.stringMatching(/^sk_[\w-]{43}$/) });
    expect((await h.request('GET', '/contacts', { key: p.secretKey })).status).toBe(401);
    expect((await h.request('GET', '/contacts', { key: res.body.value })).status).toBe(200);
    expect((await track(p.publicKey)).status).toBe(200);
    expect((await h.request('GET', '/contacts', { key: other.secretKey })).status).toBe(200);
    expect((await track(other.publicKey)).status).toBe(200);
    const [listed] = (await h.request('GET', '/users/@me/projects', { cookie: p.owner.cookie })).body;
    expect(listed).toMatchObject({
      publicKey: p.publicKey,
      public: `pk_…${p.publicKey.slice(-4)}`,
      secret: `sk_…${res.body.value.slice(-4)}`,
    });
    // Shown in full, yet kept sealed: the row alone gives no key (and it opens only in its own row).
    const [row] = await h.sql<{ public_key: string }>('select public_key from projects where id = $1', [p.id]);
    expect(row.public_key).toMatch(/^enc:v1:/);
    await h.sql('update projects set public_key = $1 where id = $2', [row.public_key, other.id]);
    const mine = (await h.request('GET', '/users/@me/projects', { cookie: other.owner.cookie })).body;
    expect(mine.find((x: { id: string }) => x.id === other.id).publicKey).toBeNull();
  });

  it('rotates the public key alone: the old one is refused at once, the secret key keeps working', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const track = (key: string) =>
      h.request('POST', '/v1/track', { key, body: { email: 'k@example.test', event: 'visited' } });
    expect((await track(p.publicKey)).status).toBe(200);
    expect((await h.request('GET', '/contacts', { key: p.secretKey })).status).toBe(200);

    const res = await h.request('POST', `/users/@me/projects/${p.id}/regenerate-key`, {
      cookie: p.owner.cookie,
      body: { key: 'public' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: p.id, key: 'public', value: expect.stringMatching(/^pk_[\w-]{43}$/) });
    expect((await track(p.publicKey)).status).toBe(401);
    expect((await track(res.body.value)).status).toBe(200);
    expect((await h.request('GET', '/contacts', { key: p.secretKey })).status).toBe(200);
    expect((await track(other.publicKey)).status).toBe(200);
    // The public key is safe to show: the list has it in full, the new one.
    const [listed] = (await h.request('GET', '/users/@me/projects', { cookie: p.owner.cookie })).body;
    expect(listed).toMatchObject({ publicKey: res.body.value, secret: `sk_…${p.secretKey.slice(-4)}` });
    const [theirs] = (await h.request('GET', '/users/@me/projects', { cookie: other.owner.cookie })).body;
    expect(theirs.publicKey).toBe(other.publicKey);
  });

  it('refuses a key rotation that is not an OWNER or ADMIN one, or names no key, and changes nothing', async () => {
    const p = await createProject(h);
    const member = await createVerifiedUser(h);
    await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: member.email, role: 'MEMBER' },
    });
    const rotate = (cookie: string, body?: Json) =>
      h.request('POST', `/users/@me/projects/${p.id}/regenerate-key`, { cookie, body });
    expect((await rotate(member.cookie, { key: 'secret' })).status).toBe(403);
    const stranger = await createUser(h);
    expect((await rotate(stranger.cookie, { key: 'secret' })).status).toBe(404);
    const both = await rotate(p.owner.cookie, { key: 'both' });
    expect(both.status).toBe(422);
    expect(both.body.error.errors[0]).toMatchObject({ field: 'key', code: 'invalid_enum_value' });
    expect((await rotate(p.owner.cookie, {})).status).toBe(422);
    // A leaked secret key cannot rotate keys: project management takes the session only.
    expect(
      (
        await h.request('POST', `/users/@me/projects/${p.id}/regenerate-key`, {
          key: p.secretKey,
          body: { key: 'secret' },
        })
      ).status,
    ).toBe(401);
    expect((await h.request('GET', '/contacts', { key: p.secretKey })).status).toBe(200);
  });

  it('changes roles, keeps at least one OWNER, and removes members', async () => {
    const p = await createProject(h);
    const admin = await createVerifiedUser(h);
    await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: admin.email, role: 'ADMIN' },
    });
    const lastOwner = await h.request('PATCH', `/projects/${p.id}/members/${p.owner.id}`, {
      cookie: p.owner.cookie,
      body: { role: 'ADMIN' },
    });
    expect(lastOwner.status).toBe(409);
    const adminPromotes = await h.request('PATCH', `/projects/${p.id}/members/${admin.id}`, {
      cookie: admin.cookie,
      body: { role: 'OWNER' },
    });
    expect(adminPromotes.status).toBe(403);
    const promote = await h.request('PATCH', `/projects/${p.id}/members/${admin.id}`, {
      cookie: p.owner.cookie,
      body: { role: 'OWNER' },
    });
    expect(promote.status).toBe(200);
    expect(promote.body).toMatchObject({ userId: admin.id, role: 'OWNER' });
    const remove = await h.request('DELETE', `/projects/${p.id}/members/${p.owner.id}`, { cookie: admin.cookie });
    expect(remove.status).toBe(204);
    expect((await h.request('GET', `/projects/${p.id}/members`, { cookie: p.owner.cookie })).status).toBe(404);
    expect((await h.request('DELETE', `/projects/${p.id}/members/${admin.id}`, { cookie: admin.cookie })).status).toBe(
      409,
    );
    expect(
      (
        await h.request('PATCH', `/projects/${p.id}/members/${p.owner.id}`, {
          cookie: admin.cookie,
          body: { role: 'MEMBER' },
        })
      ).status,
    ).toBe(404);
  });

  it('reports setup-state and security', async () => {
    const p = await createProject(h);
    const s = await h.request('GET', `/projects/${p.id}/setup-state`, { cookie: p.owner.cookie });
    expect(s.status).toBe(200);
    expect(s.body).toEqual({
      hasDomain: false,
      hasVerifiedDomain: false,
      hasTemplate: false,
      hasContact: false,
      hasSentEmail: false,
      hasTrackedEvent: false,
      hasCampaign: false,
      hasWorkflow: false,
      completed: false,
    });
    await h.sql(`insert into contacts (id, project_id, email) values (gen_random_uuid(), $1, 'c@example.test')`, [
      p.id,
    ]);
    expect((await h.request('GET', `/projects/${p.id}/setup-state`, { key: p.secretKey })).body.hasContact).toBe(true);
    const sec = await h.request('GET', `/projects/${p.id}/security`, { cookie: p.owner.cookie });
    expect(sec.status).toBe(200);
    expect(sec.body).toEqual({
      id: p.id,
      publicKey: `pk_…${p.publicKey.slice(-4)}`,
      secretKey: `sk_…${p.secretKey.slice(-4)}`,
      keysStoredAs: 'sha256',
      tracking: 'ENABLED',
      disabled: false,
      members: { owners: 1, admins: 0, members: 0 },
      verifiedDomains: [],
      senderHealth: expect.objectContaining({ level: 'healthy', paused: false }),
    });
    expect((await h.request('GET', `/users/@me/projects/${p.id}/security`, { cookie: p.owner.cookie })).body).toEqual(
      sec.body,
    );
    const other = await createProject(h);
    expect((await h.request('GET', `/projects/${p.id}/security`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('GET', `/projects/not-a-uuid/security`, { cookie: p.owner.cookie })).status).toBe(404);
  });

  it('resets a project: its data is wiped, the project, members and keys stay', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    for (const proj of [p, other]) {
      await h.sql(`insert into contacts (id, project_id, email) values (gen_random_uuid(), $1, 'c@example.test')`, [
        proj.id,
      ]);
      await h.sql(
        `insert into templates (id, project_id, name, subject, body, "from") values (gen_random_uuid(), $1, 't', 's', 'b', 'a@example.test')`,
        [proj.id],
      );
    }
    const res = await h.request('POST', `/users/@me/projects/${p.id}/reset`, { cookie: p.owner.cookie });
    expect(res.status).toBe(200);
    expect(await h.sql('select count(*)::int as n from contacts where project_id = $1', [p.id])).toEqual([{ n: 0 }]);
    expect(await h.sql('select count(*)::int as n from templates where project_id = $1', [p.id])).toEqual([{ n: 0 }]);
    expect(await h.sql('select count(*)::int as n from contacts where project_id = $1', [other.id])).toEqual([
      { n: 1 },
    ]);
    expect((await h.request('GET', `/projects/${p.id}/security`, { key: p.secretKey })).status).toBe(200);
  });
});
