import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { newId } from '../lib/ids.js';
import { addContact, one } from '../../test/segments-helpers.js';

describe('segments CRUD and members', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  it('creates a DYNAMIC segment with its member count; 400 simple body without a condition object', async () => {
    const { id: p, secretKey: key } = await createProject(h);
    await addContact(h, p, 'a@x.test', { plan: 'pro' });
    await addContact(h, p, 'b@x.test', { plan: 'free' });
    const res = await h.request('POST', '/segments', {
      key,
      body: { name: 'Pro users', description: 'paying', condition: one('data.plan', 'equals', 'pro') },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Pro users',
      description: 'paying',
      type: 'DYNAMIC',
      trackMembership: false,
      memberCount: 1,
      projectId: p,
      condition: one('data.plan', 'equals', 'pro'),
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);

    for (const body of [
      { name: 'x' },
      { name: 'x', type: 'DYNAMIC', condition: 'AND' },
      { name: 'x', condition: null },
    ]) {
      const r = await h.request('POST', '/segments', { key, body });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: expect.stringMatching(/condition/i) });
    }
  });

  it('422 for a bad condition or fields; STATIC ignores the condition', async () => {
    const { secretKey: key } = await createProject(h);
    const bad = await h.request('POST', '/segments', {
      key,
      body: {
        name: 'x',
        condition: {
          logic: 'AND',
          groups: [
            {
              filters: [
                { field: 'data.a', operator: 'equals', value: 1 },
                { field: 'event.buy', operator: 'equals', value: 1 },
              ],
            },
          ],
        },
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors).toEqual([
      expect.objectContaining({ field: 'condition.groups.0.filters.1.operator' }),
    ]);
    const long = await h.request('POST', '/segments', { key, body: { name: 'n'.repeat(101), type: 'STATIC' } });
    expect(long.status).toBe(422);
    expect(long.body.error.errors[0].field).toBe('name');
    const desc = await h.request('POST', '/segments', {
      key,
      body: { name: 'n', description: 'd'.repeat(501), type: 'STATIC' },
    });
    expect(desc.status).toBe(422);
    const n = 5000;
    const deep =
      '{"logic":"AND","groups":[{"filters":[],"conditions":'.repeat(n) +
      '{"logic":"AND","groups":[]}' +
      '}]}'.repeat(n);
    const deepRes = await h.request('POST', '/segments', {
      key,
      raw: true,
      body: `{"name":"deep","condition":${deep}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(deepRes.status).toBe(422);
    expect(deepRes.body.error.errors[0]).toMatchObject({ field: 'condition', code: 'too_big' });
    const st = await h.request('POST', '/segments', {
      key,
      body: { name: 'List', type: 'STATIC', condition: { nonsense: true } },
    });
    expect(st.status).toBe(201);
    expect(st.body).toMatchObject({ type: 'STATIC', condition: null, memberCount: 0 });
  });

  it('lists newest first as a bare array; GET one; 404 for another project or a non-uuid', async () => {
    const a = await createProject(h);
    const b = await createProject(h);
    const s1 = await h.request('POST', '/segments', { key: a.secretKey, body: { name: 'one', type: 'STATIC' } });
    h.clock.advance(1000);
    const s2 = await h.request('POST', '/segments', { key: a.secretKey, body: { name: 'two', type: 'STATIC' } });
    const list = await h.request('GET', '/segments', { key: a.secretKey });
    expect(list.status).toBe(200);
    expect(list.body.map((s: { id: string }) => s.id)).toEqual([s2.body.id, s1.body.id]);
    expect((await h.request('GET', `/segments/${s1.body.id}`, { key: a.secretKey })).body.name).toBe('one');
    expect((await h.request('GET', `/segments/${s1.body.id}`, { key: b.secretKey })).status).toBe(404);
    expect(
      (await h.request('PATCH', `/segments/${s1.body.id}`, { key: b.secretKey, body: { name: 'z' } })).status,
    ).toBe(404);
    expect((await h.request('DELETE', `/segments/${s1.body.id}`, { key: b.secretKey })).status).toBe(404);
    expect((await h.request('GET', '/segments/not-a-uuid', { key: a.secretKey })).status).toBe(404);
    expect((await h.request('GET', `/segments/${newId()}/contacts`, { key: a.secretKey })).status).toBe(404);
    expect((await h.request('GET', '/segments', { key: b.secretKey })).body).toEqual([]);
    // The dashboard's session cookie with X-Project-Id sees the same.
    const viaSession = await h.request('GET', '/segments', {
      cookie: a.owner.cookie,
      headers: { 'x-project-id': a.id },
    });
    expect(viaSession.body.map((s: { id: string }) => s.id)).toEqual([s2.body.id, s1.body.id]);
    expect((await h.request('GET', '/segments', { key: a.publicKey })).status).toBe(401);
  });

  it('PATCH changes fields and recounts a new condition; a reference back to itself is 422', async () => {
    const { id: p, secretKey: key } = await createProject(h);
    await addContact(h, p, 'a@x.test', { plan: 'pro' });
    await addContact(h, p, 'b@x.test', { plan: 'free' });
    const s = await h.request('POST', '/segments', {
      key,
      body: { name: 'Pro', condition: one('data.plan', 'equals', 'pro') },
    });
    const r = await h.request('PATCH', `/segments/${s.body.id}`, {
      key,
      body: { name: 'All', description: 'everyone', condition: one('data.plan', 'exists'), trackMembership: true },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: 'All',
      description: 'everyone',
      memberCount: 2,
      trackMembership: true,
      condition: one('data.plan', 'exists'),
    });
    const self = await h.request('PATCH', `/segments/${s.body.id}`, {
      key,
      body: { condition: one(`segment.${s.body.id}`, 'memberOfSegment') },
    });
    expect(self.status).toBe(422);
    expect(self.body.error.errors[0]).toMatchObject({
      field: 'condition.groups.0.filters.0.field',
      code: 'segment_cycle',
    });
    // Named as people know it, not by its id.
    expect(self.body.error.errors[0].message).toContain('The segment "All" would refer back to itself');
    expect(self.body.error.errors[0].message).not.toContain(s.body.id);
    // Through another segment: B refers to A; A may not then refer to B.
    const b = await h.request('POST', '/segments', {
      key,
      body: { name: 'B', condition: one(`segment.${s.body.id}`, 'memberOfSegment') },
    });
    expect(b.status).toBe(201);
    expect(b.body.memberCount).toBe(2);
    const cycle = await h.request('PATCH', `/segments/${s.body.id}`, {
      key,
      body: { condition: one(`segment.${b.body.id}`, 'notMemberOfSegment') },
    });
    expect(cycle.status).toBe(422);
    expect(cycle.body.error.errors[0]).toMatchObject({
      field: 'condition.groups.0.filters.0.field',
      code: 'segment_cycle',
    });
    expect((await h.request('GET', `/segments/${s.body.id}`, { key })).body.condition).toEqual(
      one('data.plan', 'exists'),
    );
    // A STATIC segment keeps no condition.
    const st = await h.request('POST', '/segments', { key, body: { name: 'S', type: 'STATIC' } });
    const stp = await h.request('PATCH', `/segments/${st.body.id}`, {
      key,
      body: { condition: one('data.plan', 'exists') },
    });
    expect(stp.body.condition).toBeNull();
  });

  it('DELETE: 409 while a SCHEDULED or SENDING campaign uses it, 204 otherwise', async () => {
    const { id: p, secretKey: key } = await createProject(h);
    const s = await h.request('POST', '/segments', { key, body: { name: 'S', type: 'STATIC' } });
    const campaignId = newId();
    await h.sql(
      `insert into campaigns (id, project_id, name, subject, body, "from", status, audience_type, segment_id)
      values ($1, $2, 'c', 's', 'b', 'f@x.test', 'SCHEDULED', 'SEGMENT', $3)`,
      [campaignId, p, s.body.id],
    );
    const r = await h.request('DELETE', `/segments/${s.body.id}`, { key });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('CONFLICT');
    await h.sql(`update campaigns set status = 'SENDING' where id = $1`, [campaignId]);
    expect((await h.request('DELETE', `/segments/${s.body.id}`, { key })).status).toBe(409);
    await h.sql(`update campaigns set status = 'SENT' where id = $1`, [campaignId]);
    const ok = await h.request('DELETE', `/segments/${s.body.id}`, { key });
    expect(ok.status).toBe(204);
    expect(ok.text).toBe('');
    expect((await h.request('GET', `/segments/${s.body.id}`, { key })).status).toBe(404);
  });

  it('static members: add with createMissing, notFound, remove; 400 for a dynamic segment', async () => {
    const { id: p, secretKey: key } = await createProject(h);
    await addContact(h, p, 'known@x.test');
    const s = await h.request('POST', '/segments', { key, body: { name: 'S', type: 'STATIC' } });
    const add = await h.request('POST', `/segments/${s.body.id}/members`, {
      key,
      body: { emails: ['Known@X.test', 'ghost@x.test'] },
    });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({ added: 1, created: 0, notFound: ['ghost@x.test'] });
    const add2 = await h.request('POST', `/segments/${s.body.id}/members`, {
      key,
      body: { emails: ['ghost@x.test', 'new@x.test'], createMissing: true, subscribed: false },
    });
    expect(add2.body).toEqual({ added: 2, created: 2, notFound: [] });
    const created = await h.sql(
      'select email, subscribed from contacts where project_id = $1 and email in ($2, $3) order by email',
      [p, 'ghost@x.test', 'new@x.test'],
    );
    expect(created).toEqual([
      { email: 'ghost@x.test', subscribed: false },
      { email: 'new@x.test', subscribed: false },
    ]);
    expect((await h.request('GET', `/segments/${s.body.id}`, { key })).body.memberCount).toBe(3);
    const page = await h.request('GET', `/segments/${s.body.id}/contacts?page=1&pageSize=2`, { key });
    expect(page.body).toMatchObject({ total: 3, page: 1, pageSize: 2 });
    expect(page.body.data).toHaveLength(2);
    expect(page.body.data[0]).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        email: expect.any(String),
        subscribed: expect.any(Boolean),
        data: {},
      }),
    );
    const rm = await h.request('DELETE', `/segments/${s.body.id}/members`, {
      key,
      body: { emails: ['KNOWN@x.test', 'nobody@x.test'] },
    });
    expect(rm.body).toEqual({ removed: 1 });
    expect((await h.request('GET', `/segments/${s.body.id}`, { key })).body.memberCount).toBe(2);
    const bad = await h.request('POST', `/segments/${s.body.id}/members`, { key, body: { emails: ['not-an-email'] } });
    expect(bad.status).toBe(422);
    const dyn = await h.request('POST', '/segments', {
      key,
      body: { name: 'D', condition: one('email', 'contains', 'x') },
    });
    expect(
      (await h.request('POST', `/segments/${dyn.body.id}/members`, { key, body: { emails: ['known@x.test'] } })).status,
    ).toBe(400);
    expect(
      (await h.request('DELETE', `/segments/${dyn.body.id}/members`, { key, body: { emails: ['known@x.test'] } }))
        .status,
    ).toBe(400);
  });

  it('dynamic contacts are live and paged (pageSize clamped to 100); refresh recounts without events or members', async () => {
    const { id: p, secretKey: key } = await createProject(h);
    for (let i = 0; i < 3; i++)
      await addContact(h, p, `c${i}@x.test`, { plan: 'pro' }, { createdAt: new Date(Date.UTC(2025, 0, 1 + i)) });
    const s = await h.request('POST', '/segments', {
      key,
      body: { name: 'Pro', condition: one('data.plan', 'equals', 'pro'), trackMembership: true },
    });
    expect(s.body.memberCount).toBe(3);
    await addContact(h, p, 'late@x.test', { plan: 'pro' }, { createdAt: new Date(Date.UTC(2025, 1, 1)) });
    const page = await h.request('GET', `/segments/${s.body.id}/contacts?pageSize=500`, { key });
    expect(page.body).toMatchObject({ total: 4, page: 1, pageSize: 100 });
    expect(page.body.data.map((c: { email: string }) => c.email)).toEqual([
      'late@x.test',
      'c2@x.test',
      'c1@x.test',
      'c0@x.test',
    ]);
    expect((await h.request('GET', `/segments/${s.body.id}/contacts?page=1e300`, { key })).status).toBe(422);
    expect((await h.request('GET', `/segments/${s.body.id}/contacts?page=0`, { key })).status).toBe(422);
    const p2 = await h.request('GET', `/segments/${s.body.id}/contacts?page=2&pageSize=3`, { key });
    expect(p2.body.data.map((c: { email: string }) => c.email)).toEqual(['c0@x.test']);
    expect((await h.request('GET', `/segments/${s.body.id}`, { key })).body.memberCount).toBe(3); // cached
    const r = await h.request('POST', `/segments/${s.body.id}/refresh`, { key });
    expect(r.status).toBe(200);
    expect(r.body.memberCount).toBe(4);
    expect(await h.sql('select count(*)::int as n from segment_members where segment_id = $1', [s.body.id])).toEqual([
      { n: 0 },
    ]);
    expect(
      await h.sql("select count(*)::int as n from events where project_id = $1 and name like 'segment.%'", [p]),
    ).toEqual([{ n: 0 }]);
  });
});
