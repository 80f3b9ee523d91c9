import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, type TestDomain } from '../../test/sending-fixtures.js';

// Campaign resources and their rules (create, list, replace, delete, duplicate, states, sender domain).
describe('campaigns CRUD', () => {
  let h: Harness;
  let p: TestProject;
  let d: TestDomain;

  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
  });
  afterAll(async () => {
    await h?.close();
  });

  const body = (extra: Record<string, unknown> = {}) => ({
    name: 'Launch',
    subject: 'We launched',
    body: '<p>Hi</p>',
    from: `hello@${d.domain}`,
    ...extra,
  });
  const post = (b: unknown, proj = p) => h.request('POST', '/campaigns', { key: proj.secretKey, body: b });

  it('creates a DRAFT with defaults, wrapped in {success, data}; GET returns it plain', async () => {
    const r = await post(body({ description: 'internal', fromName: 'Team', replyTo: `reply@${d.domain}` }));
    expect(r.status).toBe(201);
    expect(r.body.success).toBe(true);
    const c = r.body.data;
    expect(c).toMatchObject({
      name: 'Launch',
      description: 'internal',
      subject: 'We launched',
      body: '<p>Hi</p>',
      from: `hello@${d.domain}`,
      fromName: 'Team',
      replyTo: `reply@${d.domain}`,
      type: 'MARKETING',
      status: 'DRAFT',
      audienceType: 'ALL',
      audienceCondition: null,
      segmentId: null,
      scheduledFor: null,
      totalRecipients: 0,
      sentCount: 0,
      deliveredCount: 0,
      openedCount: 0,
      clickedCount: 0,
      bouncedCount: 0,
      projectId: p.id,
      sentAt: null,
    });
    expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(c.createdAt).toISOString()).toBe(c.createdAt);
    const g = await h.request('GET', `/campaigns/${c.id}`, { key: p.secretKey });
    expect(g.status).toBe(200);
    expect(g.body).toEqual(c);
  });

  it('refuses an unverified or foreign sender domain with 403 INTERNAL_SERVER_ERROR', async () => {
    const r = await post(body({ from: 'hello@not-verified.test' }));
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('INTERNAL_SERVER_ERROR');
    const other = await createProject(h);
    const f = await post(body(), other);
    expect(f.status).toBe(403);
    const pending = await createVerifiedDomain(h, p.id, { verified: false });
    expect((await post(body({ from: `a@${pending.domain}` }))).status).toBe(403);
    // A subdomain of a verified domain is covered.
    expect((await post(body({ from: `a@news.${d.domain}` }))).status).toBe(201);
  });

  it('validates required fields and audiences with 422 errors[]', async () => {
    const missing = await post({ subject: 'x' });
    expect(missing.status).toBe(422);
    expect(missing.body.error.errors.map((e: { field: string }) => e.field).sort()).toEqual(['body', 'from', 'name']);
    const seg = await post(body({ audienceType: 'SEGMENT' }));
    expect(seg.status).toBe(422);
    expect(seg.body.error.errors[0]).toMatchObject({ field: 'segmentId' });
    const unknownSeg = await post(body({ audienceType: 'SEGMENT', segmentId: '0190a0a0-0000-7000-8000-000000000000' }));
    expect(unknownSeg.status).toBe(422);
    expect(unknownSeg.body.error.errors[0]).toMatchObject({ field: 'segmentId', code: 'segment_not_found' });
    // Another project's segment is not found either.
    const other = await createProject(h);
    const theirs = await h.request('POST', '/segments', {
      key: other.secretKey,
      body: { name: 'Theirs', type: 'STATIC' },
    });
    expect((await post(body({ audienceType: 'SEGMENT', segmentId: theirs.body.id }))).status).toBe(422);
    const filt = await post(body({ audienceType: 'FILTERED' }));
    expect(filt.status).toBe(422);
    expect(filt.body.error.errors[0]).toMatchObject({ field: 'audienceCondition' });
    const bad = await post(
      body({
        audienceType: 'FILTERED',
        audienceCondition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'subscribed', operator: 'contains', value: 'x' }] }],
        },
      }),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0]).toMatchObject({
      field: 'audienceCondition.groups.0.filters.0.operator',
      code: 'invalid_operator',
    });
    expect((await post(body({ type: 'WEEKLY' }))).status).toBe(422);
    expect((await post(body({ audienceType: 'EVERYONE' }))).status).toBe(422);
    const ok = await post(
      body({
        audienceType: 'FILTERED',
        audienceCondition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
        },
      }),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.data.audienceCondition.groups[0].filters[0].value).toBe('pro');
  });

  it('lists with the offset envelope, status filter (400 when unknown), search, sort and clamped pageSize', async () => {
    const q = await createProject(h);
    const qd = await createVerifiedDomain(h, q.id);
    const names = ['bravo', 'Alpha', 'charlie'];
    const ids: string[] = [];
    for (const name of names) {
      ids.push(
        (await post({ name, subject: `About ${name}`, body: '<p>x</p>', from: `x@${qd.domain}` }, q)).body.data.id,
      );
    }
    await h.request('POST', `/campaigns/${ids[0]}/send`, {
      key: q.secretKey,
      body: { scheduledFor: '2099-01-01T00:00:00Z' },
    });
    const list = await h.request('GET', '/campaigns', { key: q.secretKey });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, pageSize: 20, total: 3, totalPages: 1 });
    expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['charlie', 'Alpha', 'bravo']);
    const byName = await h.request('GET', '/campaigns?sort=name&dir=asc', { key: q.secretKey });
    expect(byName.body.data.map((c: { name: string }) => c.name)).toEqual(['Alpha', 'bravo', 'charlie']);
    const sched = await h.request('GET', '/campaigns?status=SCHEDULED', { key: q.secretKey });
    expect(sched.body.data.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    const bad = await h.request('GET', '/campaigns?status=DONE', { key: q.secretKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('BAD_REQUEST');
    const search = await h.request('GET', '/campaigns?search=ABOUT%20CHAR', { key: q.secretKey });
    expect(search.body.data.map((c: { name: string }) => c.name)).toEqual(['charlie']);
    const byFrom = await h.request('GET', `/campaigns?search=${encodeURIComponent(qd.domain)}`, { key: q.secretKey });
    expect(byFrom.body.total).toBe(3);
    const paged = await h.request('GET', '/campaigns?page=2&pageSize=2', { key: q.secretKey });
    expect(paged.body).toMatchObject({ page: 2, pageSize: 2, total: 3, totalPages: 2 });
    expect(paged.body.data).toHaveLength(1);
    expect((await h.request('GET', '/campaigns?pageSize=500', { key: q.secretKey })).body.pageSize).toBe(100);
    // Other projects see none of these.
    expect(
      (await h.request('GET', '/campaigns', { key: p.secretKey })).body.data.some((c: { id: string }) =>
        ids.includes(c.id),
      ),
    ).toBe(false);
  });

  it('replaces DRAFT and SCHEDULED campaigns with PUT, 409 once sending or sent', async () => {
    const id = (await post(body())).body.data.id;
    const put = await h.request('PUT', `/campaigns/${id}`, {
      key: p.secretKey,
      body: body({ name: 'Renamed', subject: 'New', type: 'TRANSACTIONAL' }),
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id,
      name: 'Renamed',
      subject: 'New',
      type: 'TRANSACTIONAL',
      description: null,
      status: 'DRAFT',
    });
    await h.request('POST', `/campaigns/${id}/send`, {
      key: p.secretKey,
      body: { scheduledFor: '2099-01-01T00:00:00Z' },
    });
    const put2 = await h.request('PUT', `/campaigns/${id}`, { key: p.secretKey, body: body({ name: 'Again' }) });
    expect(put2.status).toBe(200);
    expect(put2.body).toMatchObject({ status: 'SCHEDULED', scheduledFor: '2099-01-01T00:00:00.000Z', name: 'Again' });
    expect(
      (await h.request('PUT', `/campaigns/${id}`, { key: p.secretKey, body: body({ from: 'x@unverified.test' }) }))
        .status,
    ).toBe(403);
    expect(
      (await h.request('PUT', `/campaigns/${id}`, { key: p.secretKey, body: { name: 'only a name' } })).status,
    ).toBe(422);
    await h.sql(`update campaigns set status = 'SENT' where id = $1`, [id]);
    const sent = await h.request('PUT', `/campaigns/${id}`, { key: p.secretKey, body: body() });
    expect(sent.status).toBe(409);
    expect(sent.body.error.code).toBe('CONFLICT');
    await h.sql(`update campaigns set status = 'SENDING' where id = $1`, [id]);
    expect((await h.request('PUT', `/campaigns/${id}`, { key: p.secretKey, body: body() })).status).toBe(409);
  });

  it('deletes with 204, but not while SENDING (409); a scheduled job goes with it', async () => {
    const id = (await post(body())).body.data.id;
    await h.request('POST', `/campaigns/${id}/send`, {
      key: p.secretKey,
      body: { scheduledFor: '2099-01-01T00:00:00Z' },
    });
    expect(await h.sql(`select 1 from ${JOBS} j where key = $1`, [`campaign:${id}`])).toHaveLength(1);
    const del = await h.request('DELETE', `/campaigns/${id}`, { key: p.secretKey });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect(await h.sql(`select 1 from ${JOBS} j where key = $1`, [`campaign:${id}`])).toHaveLength(0);
    expect((await h.request('GET', `/campaigns/${id}`, { key: p.secretKey })).status).toBe(404);
    expect((await h.request('DELETE', `/campaigns/${id}`, { key: p.secretKey })).status).toBe(404);

    const busy = (await post(body())).body.data.id;
    await h.sql(`update campaigns set status = 'SENDING' where id = $1`, [busy]);
    const r = await h.request('DELETE', `/campaigns/${busy}`, { key: p.secretKey });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('CONFLICT');
  });

  it('duplicates as a new DRAFT "<name> (copy)"', async () => {
    const src = (
      await post(body({ name: 'Weekly', audienceType: 'FILTERED', audienceCondition: { logic: 'AND', groups: [] } }))
    ).body.data;
    await h.request('POST', `/campaigns/${src.id}/send`, {
      key: p.secretKey,
      body: { scheduledFor: '2099-01-01T00:00:00Z' },
    });
    const dup = await h.request('POST', `/campaigns/${src.id}/duplicate`, { key: p.secretKey });
    expect(dup.status).toBe(201);
    expect(dup.body).toMatchObject({
      name: 'Weekly (copy)',
      status: 'DRAFT',
      scheduledFor: null,
      subject: src.subject,
      audienceType: 'FILTERED',
    });
    expect(dup.body.id).not.toBe(src.id);
  });

  it('answers 404 for unknown, malformed and foreign ids; 409 for sends and cancels from wrong states', async () => {
    const other = await createProject(h);
    const id = (await post(body())).body.data.id;
    for (const path of [
      '/campaigns/nope',
      '/campaigns/0190a0a0-0000-7000-8000-000000000000',
      `/campaigns/${id}/stats`,
    ]) {
      const key = path.endsWith('/stats') ? other.secretKey : p.secretKey;
      const r = await h.request('GET', path, { key });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
    expect((await h.request('POST', `/campaigns/${id}/send`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('POST', `/campaigns/${id}/cancel`, { key: p.secretKey })).status).toBe(409);
    await h.sql(`update campaigns set status = 'CANCELLED' where id = $1`, [id]);
    expect((await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey })).status).toBe(409);
    expect((await h.request('GET', '/campaigns', { key: p.publicKey })).status).toBe(401);
  });

  it('refuses a send past the monthly campaign cap with 429', async () => {
    const q = await createProject(h);
    const qd = await createVerifiedDomain(h, q.id);
    await h.sql(
      `insert into contacts (id, project_id, email) select gen_random_uuid(), $1, 'cap' || i || '@x.test' from generate_series(1, 3) i`,
      [q.id],
    );
    await h.sql(`update projects set billing_limits = jsonb_set(billing_limits, '{campaigns}', '2') where id = $1`, [
      q.id,
    ]);
    const id = (await post({ name: 'c', subject: 's', body: 'b', from: `a@${qd.domain}` }, q)).body.data.id;
    const r = await h.request('POST', `/campaigns/${id}/send`, { key: q.secretKey });
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('BILLING_LIMIT_EXCEEDED');
    expect((await h.request('GET', `/campaigns/${id}`, { key: q.secretKey })).body.status).toBe('DRAFT');
  });
});
