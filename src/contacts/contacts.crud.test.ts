import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { newId } from '../lib/ids.js';

describe('contacts CRUD', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  const events = (p: TestProject) =>
    h.sql<{ name: string; contact_id: string }>(
      `select name, contact_id from events where project_id = $1 order by created_at, id`,
      [p.id],
    );

  it('creates with 201 and _meta, defaults subscribed to true, normalises the email and applies data rules', async () => {
    const p = await createProject(h);
    const res = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: {
        email: '  Ann@Example.TEST ',
        data: { plan: 'pro', seats: 3, vip: true, empty: '', gone: null, id: 'x', email: 'y', unsubscribeUrl: 'z' },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: 'ann@example.test',
      subscribed: true,
      snoozedUntil: null,
      data: { plan: 'pro', seats: 3, vip: true },
      _meta: { isNew: true, isUpdate: false },
    });
    expect(Object.keys(res.body.data).sort()).toEqual(['plan', 'seats', 'vip']);
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    const [row] = await h.sql('select email, subscribed, data from contacts where id = $1', [res.body.id]);
    expect(row).toEqual({ email: 'ann@example.test', subscribed: true, data: { plan: 'pro', seats: 3, vip: true } });
  });

  it('upserts an existing email with 200: merges data, null deletes, "" keeps, and emits on an explicit change', async () => {
    const p = await createProject(h);
    const a = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'bob@example.test', data: { a: 1, b: 'x', c: 'keep' } },
    });
    const b = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'BOB@example.test', subscribed: false, data: { a: 2, b: null, c: '' } },
    });
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({
      id: a.body.id,
      subscribed: false,
      data: { a: 2, c: 'keep' },
      _meta: { isNew: false, isUpdate: true },
    });
    expect(b.body.data).not.toHaveProperty('b');
    expect(await events(p)).toEqual([{ name: 'contact.unsubscribed', contact_id: a.body.id }]);
    // Same value again, or omitted: no state change, no event; omitted keeps the state.
    await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'bob@example.test', subscribed: false } });
    const c = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'bob@example.test' } });
    expect(c.body.subscribed).toBe(false);
    expect(await events(p)).toHaveLength(1);
    await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'bob@example.test', subscribed: true } });
    expect((await events(p)).map((e) => e.name)).toEqual(['contact.unsubscribed', 'contact.subscribed']);
  });

  it('creates an unsubscribed contact when asked, without an event', async () => {
    const p = await createProject(h);
    const res = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'quiet@example.test', subscribed: false },
    });
    expect(res.status).toBe(201);
    expect(res.body.subscribed).toBe(false);
    expect(await events(p)).toEqual([]);
  });

  it('answers 400 with the simple body without email, 422 for a malformed one, 401 without a valid secret key', async () => {
    const p = await createProject(h);
    for (const body of [{}, { email: '' }, { email: null }, { data: { a: 1 } }]) {
      const res = await h.request('POST', '/contacts', { key: p.secretKey, body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    const noBody = await h.request('POST', '/contacts', { key: p.secretKey });
    expect(noBody.status, noBody.text).toBe(400);
    expect(noBody.body).toEqual({ error: expect.any(String) });
    const bad = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'not-an-email' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'email', code: 'invalid_string' }],
    });
    const wrongType = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'x@example.test', subscribed: 'yes' },
    });
    expect(wrongType.status).toBe(422);
    expect((await h.request('POST', '/contacts', { body: { email: 'x@example.test' } })).status).toBe(401);
    const pk = await h.request('POST', '/contacts', { key: p.publicKey, body: { email: 'x@example.test' } });
    expect(pk.status).toBe(401);
    expect(pk.body.error.code).toBe('INVALID_API_KEY');
    expect((await h.request('GET', '/contacts', { key: 'sk_nope' })).status).toBe(401);
    expect(await h.sql('select 1 from contacts where project_id = $1', [p.id])).toEqual([]);
  });

  it('works with the session cookie and X-Project-Id', async () => {
    const p = await createProject(h);
    const res = await h.request('POST', '/contacts', {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
      body: { email: 'cookie@example.test' },
    });
    expect(res.status).toBe(201);
    const got = await h.request('GET', `/contacts/${res.body.id}`, {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
    });
    expect(got.status).toBe(200);
  });

  it("gets one contact without _meta; 404 for unknown, non-uuid and another project's id", async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const c = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'get@example.test', data: { n: 1 } },
    });
    const got = await h.request('GET', `/contacts/${c.body.id}`, { key: p.secretKey });
    expect(got.status).toBe(200);
    const { _meta, ...plain } = c.body;
    expect(_meta).toBeDefined();
    expect(got.body).toEqual({ ...plain, suppression: null, topics: [] });
    for (const path of [`/contacts/${newId()}`, '/contacts/not-a-uuid']) {
      const res = await h.request('GET', path, { key: p.secretKey });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
    expect((await h.request('GET', `/contacts/${c.body.id}`, { key: other.secretKey })).status).toBe(404);
    expect(
      (await h.request('PATCH', `/contacts/${c.body.id}`, { key: other.secretKey, body: { subscribed: false } }))
        .status,
    ).toBe(404);
    expect((await h.request('DELETE', `/contacts/${c.body.id}`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('GET', '/contacts', { key: other.secretKey })).body).toMatchObject({ data: [], total: 0 });
    const [row] = await h.sql('select subscribed from contacts where id = $1', [c.body.id]);
    expect(row.subscribed).toBe(true);
  });

  it('patches email, subscription and data; flipping emits the event; a taken email is 409', async () => {
    const p = await createProject(h);
    const c = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'pat@example.test', data: { a: 1, b: 2, c: 'x' } },
    });
    await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'taken@example.test' } });
    const res = await h.request('PATCH', `/contacts/${c.body.id}`, {
      key: p.secretKey,
      body: { email: 'Pat2@Example.test', subscribed: false, data: { a: null, b: 3, c: '', email: 'no', d: true } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: c.body.id,
      email: 'pat2@example.test',
      subscribed: false,
      snoozedUntil: null,
      data: { b: 3, c: 'x', d: true },
      createdAt: c.body.createdAt,
      updatedAt: expect.any(String),
    });
    expect(await events(p)).toEqual([{ name: 'contact.unsubscribed', contact_id: c.body.id }]);
    // Same state again: no event.
    await h.request('PATCH', `/contacts/${c.body.id}`, { key: p.secretKey, body: { subscribed: false } });
    expect(await events(p)).toHaveLength(1);
    const back = await h.request('PATCH', `/contacts/${c.body.id}`, { key: p.secretKey, body: { subscribed: true } });
    expect(back.body.subscribed).toBe(true);
    expect((await events(p)).map((e) => e.name)).toEqual(['contact.unsubscribed', 'contact.subscribed']);

    const conflict = await h.request('PATCH', `/contacts/${c.body.id}`, {
      key: p.secretKey,
      body: { email: 'TAKEN@example.test' },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('CONFLICT');
    const same = await h.request('PATCH', `/contacts/${c.body.id}`, {
      key: p.secretKey,
      body: { email: 'pat2@example.test' },
    });
    expect(same.status).toBe(200);
    const bad = await h.request('PATCH', `/contacts/${c.body.id}`, { key: p.secretKey, body: { email: 'nope' } });
    expect(bad.status).toBe(422);
    expect((await h.request('PATCH', `/contacts/${newId()}`, { key: p.secretKey, body: {} })).status).toBe(404);
    const [row] = await h.sql('select email from contacts where id = $1', [c.body.id]);
    expect(row.email).toBe('pat2@example.test');
  });

  it('allows an email used in another project', async () => {
    const p = await createProject(h);
    const q = await createProject(h);
    await h.request('POST', '/contacts', { key: q.secretKey, body: { email: 'shared@example.test' } });
    const c = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'mine@example.test' } });
    const res = await h.request('PATCH', `/contacts/${c.body.id}`, {
      key: p.secretKey,
      body: { email: 'shared@example.test' },
    });
    expect(res.status).toBe(200);
    const created = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'other@example.test' } });
    expect(created.status).toBe(201);
  });

  it('deletes with 204 and an empty body; then 404', async () => {
    const p = await createProject(h);
    const c = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'del@example.test' } });
    const res = await h.request('DELETE', `/contacts/${c.body.id}`, { key: p.secretKey });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await h.sql('select 1 from contacts where id = $1', [c.body.id])).toEqual([]);
    expect((await h.request('DELETE', `/contacts/${c.body.id}`, { key: p.secretKey })).status).toBe(404);
    expect((await h.request('DELETE', '/contacts/xyz', { key: p.secretKey })).status).toBe(404);
  });

  it('looks up emails in request order, normalised; limits to 500', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const a = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'one@example.test' } });
    await h.request('POST', '/contacts', { key: other.secretKey, body: { email: 'two@example.test' } });
    const res = await h.request('POST', '/contacts/lookup', {
      key: p.secretKey,
      body: { emails: ['two@example.test', ' ONE@example.test', 'one@example.test'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { email: 'two@example.test', exists: false, id: null },
      { email: 'one@example.test', exists: true, id: a.body.id },
      { email: 'one@example.test', exists: true, id: a.body.id },
    ]);
    const many = Array.from({ length: 500 }, (_, i) => `u${i}@example.test`);
    expect((await h.request('POST', '/contacts/lookup', { key: p.secretKey, body: { emails: many } })).status).toBe(
      200,
    );
    const tooMany = await h.request('POST', '/contacts/lookup', {
      key: p.secretKey,
      body: { emails: [...many, 'x@example.test'] },
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error.errors[0]).toMatchObject({ field: 'emails', code: 'too_big' });
    expect((await h.request('POST', '/contacts/lookup', { key: p.secretKey, body: { emails: [] } })).status).toBe(422);
    expect((await h.request('POST', '/contacts/lookup', { key: p.secretKey, body: {} })).status).toBe(422);
  });

  it('answers 400 for a broken JSON body', async () => {
    const p = await createProject(h);
    const res = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: '{"email":',
      raw: true,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
  });
});
