import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject, type TestUser } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { sha256 } from '../lib/crypto.js';
import { MAX_KEYS_PER_PROJECT } from './api-keys.schema.js';

/** `POST/GET/DELETE /projects/:id/api-keys` (issue 39): members manage scoped keys, audited. */
describe('scoped API keys: create, list, delete', () => {
  let h: Harness;
  let p: TestProject;
  let member: TestUser;
  const keysOf = (project: TestProject) => `/projects/${project.id}/api-keys`;
  const create = (body: unknown, project = p, cookie = project.owner.cookie) =>
    h.request('POST', keysOf(project), { cookie, body });

  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h, await createVerifiedUser(h));
    member = await createVerifiedUser(h);
    const added = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: member.email, role: 'MEMBER' },
    });
    expect(added.status).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('creates a key shown once, stores only its SHA-256 and a hint, and audits the creation without the key', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86400_000).toISOString();
    const res = await create({
      name: ' Website tracker ',
      scopes: ['track', 'contacts:read', 'track'],
      allowedIps: ['203.0.113.7', '2001:db8::/32'],
      expiresAt,
    });
    expect(res.status).toBe(201);
    const { key, ...listed } = res.body;
    expect(key).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
    expect(listed).toMatchObject({
      name: 'Website tracker',
      hint: key.slice(0, 10),
      scopes: ['track', 'contacts:read'],
      allowedIps: ['203.0.113.7/32', '2001:db8::/32'],
      expiresAt,
      lastUsedAt: null,
      createdBy: { id: p.owner.id, email: p.owner.email },
    });

    const [row] = await h.sql('select * from api_keys where id = $1', [listed.id]);
    expect(row.key_hash).toBe(sha256(key));
    expect(JSON.stringify(row)).not.toContain(key.slice(10));
    expect(row.created_by).toBe(p.owner.id);

    const list = await h.request('GET', keysOf(p), { cookie: p.owner.cookie });
    expect(list.status).toBe(200);
    expect(list.body.find((k: { id: string }) => k.id === listed.id)).toEqual(listed);
    expect(list.text).not.toContain(key.slice(10));

    const audit = await h.sql('select * from audit_log where target_id = $1', [listed.id]);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      project_id: p.id,
      action: 'api_key.create',
      target_type: 'api_key',
      actor_type: 'user',
      actor_id: p.owner.id,
      changes: {
        name: [null, 'Website tracker'],
        scopes: [null, ['track', 'contacts:read']],
        allowedIps: [null, ['203.0.113.7/32', '2001:db8::/32']],
        expiresAt: [null, expiresAt],
      },
    });
    expect(JSON.stringify(audit[0])).not.toContain(key.slice(10));
  });

  it('refuses bad input field by field, and writes nothing', async () => {
    const before = await h.sql('select count(*)::int as n from api_keys');
    const cases: Array<[unknown, string]> = [
      [{ name: '', scopes: ['send'] }, 'name'],
      [{ name: 'x'.repeat(101), scopes: ['send'] }, 'name'],
      [{ name: 'k', scopes: [] }, 'scopes'],
      [{ name: 'k', scopes: ['send', 'everything'] }, 'scopes.1'],
      [{ name: 'k', scopes: ['send'], allowedIps: ['10.0.0.0/8', '10.0.0.0/33'] }, 'allowedIps.1'],
      [{ name: 'k', scopes: ['send'], allowedIps: ['example.com'] }, 'allowedIps.0'],
      [{ name: 'k', scopes: ['send'], expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ name: 'k', scopes: ['send'], expiresAt: new Date(Date.now() - 1000).toISOString() }, 'expiresAt'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect(await h.sql('select count(*)::int as n from api_keys')).toEqual(before);
  });

  it('lets a MEMBER list keys but not create or delete them; keys of any kind cannot manage keys', async () => {
    const made = await create({ name: 'for roles', scopes: ['send'] });
    expect((await h.request('GET', keysOf(p), { cookie: member.cookie })).status).toBe(200);
    const denied = await create({ name: 'mine', scopes: ['send'] }, p, member.cookie);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    const del = await h.request('DELETE', `${keysOf(p)}/${made.body.id}`, { cookie: member.cookie });
    expect(del.status).toBe(403);

    expect((await h.request('GET', keysOf(p), { key: p.secretKey })).status).toBe(401);
    const scoped = await h.request('POST', keysOf(p), { key: made.body.key, body: { name: 'x', scopes: ['send'] } });
    expect(scoped.status).toBe(403);
    expect(scoped.body.error.code).toBe('FORBIDDEN');
    expect(await h.sql('select count(*)::int as n from api_keys where name in ($1, $2)', ['mine', 'x'])).toEqual([
      { n: 0 },
    ]);
  });

  it("deletes a key (audited), which then fails at once; another project's key is not found", async () => {
    const made = await create({ name: 'short-lived', scopes: ['contacts:read'], allowedIps: ['127.0.0.1'] });
    expect((await h.request('GET', '/contacts', { key: made.body.key })).status).toBe(200);

    const other = await createProject(h);
    const foreign = await h.request('DELETE', `${keysOf(other)}/${made.body.id}`, { cookie: other.owner.cookie });
    expect(foreign.status).toBe(404);

    const res = await h.request('DELETE', `${keysOf(p)}/${made.body.id}`, { cookie: p.owner.cookie });
    expect(res.status).toBe(204);
    expect(await h.sql('select id from api_keys where id = $1', [made.body.id])).toEqual([]);
    const after = await h.request('GET', '/contacts', { key: made.body.key });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('INVALID_API_KEY');

    const audit = await h.sql('select * from audit_log where target_id = $1 order by at', [made.body.id]);
    expect(audit.map((a) => a.action)).toEqual(['api_key.create', 'api_key.delete']);
    expect(audit[1].changes).toEqual({
      name: ['short-lived', null],
      scopes: [['contacts:read'], null],
      allowedIps: [['127.0.0.1/32'], null],
    });
    expect((await h.request('DELETE', `${keysOf(p)}/${made.body.id}`, { cookie: p.owner.cookie })).status).toBe(404);
  });

  it(`holds at most ${MAX_KEYS_PER_PROJECT} keys a project`, async () => {
    const q = await createProject(h);
    await h.sql(
      `insert into api_keys (id, project_id, name, key_hash, key_hint, scopes)
       select gen_random_uuid(), $1, 'k' || i, md5(random()::text) || i, 'psk_x', '{send}'
       from generate_series(1, $2::int - 1) i`,
      [q.id, MAX_KEYS_PER_PROJECT],
    );
    expect((await create({ name: 'last', scopes: ['send'] }, q)).status).toBe(201);
    const over = await create({ name: 'one too many', scopes: ['send'] }, q);
    expect(over.status).toBe(409);
    expect(over.body.error.message).toContain(String(MAX_KEYS_PER_PROJECT));
  });
});
