import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';

describe('GET /contacts', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  /** `n` contacts c000..; created_at shared by groups of 5 so the id tie-break is exercised. */
  async function seed(p: TestProject, n: number, prefix = 'c') {
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
      select gen_random_uuid(), $1, $2 || lpad(i::text, 3, '0') || '@example.test', i % 3 <> 0, '{}',
        timestamptz '2026-01-01' + (i / 5) * interval '1 second' + interval '123456 microseconds', now()
      from generate_series(0, $3 - 1) i`,
      [p.id, prefix, n],
    );
  }

  async function walk(p: TestProject, query: string, between?: (page: number) => Promise<void>) {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const res: { status: number; body: Json } = await h.request(
        'GET',
        `/contacts?${query}${cursor ? `&cursor=${cursor}` : ''}`,
        { key: p.secretKey },
      );
      expect(res.status).toBe(200);
      if (page === 0) expect(res.body.total).toBeGreaterThan(0);
      else expect(res.body.total).toBe(0);
      seen.push(...res.body.data.map((c: { email: string }) => c.email));
      if (!res.body.hasMore) {
        expect(res.body.cursor).toBeNull();
        return seen;
      }
      cursor = res.body.cursor;
      await between?.(page);
    }
    throw new Error('did not end');
  }

  it('visits each of 250 contacts exactly once, in order, for both sorts and directions', async () => {
    const p = await createProject(h);
    await seed(p, 250);
    const all = (await h.sql<{ email: string }>('select email from contacts where project_id = $1', [p.id])).map(
      (r) => r.email,
    );
    const byCreated = (
      await h.sql<{ email: string }>('select email from contacts where project_id = $1 order by created_at, id', [p.id])
    ).map((r) => r.email);
    const byEmail = [...all].sort();
    expect(await walk(p, 'limit=30&dir=asc')).toEqual(byCreated);
    expect(await walk(p, 'limit=30')).toEqual([...byCreated].reverse());
    expect(await walk(p, 'limit=7&sort=email&dir=asc')).toEqual(byEmail);
    expect(await walk(p, 'limit=100&sort=email&dir=desc')).toEqual([...byEmail].reverse());
  });

  it('stays exact while contacts are added and deleted between pages', async () => {
    for (const query of ['limit=25', 'limit=25&dir=asc', 'limit=25&sort=email', 'limit=25&sort=email&dir=asc']) {
      const p = await createProject(h);
      await seed(p, 250);
      const deleted: string[] = [];
      let k = 0;
      const seen = await walk(p, query, async () => {
        // A new contact (newest, and sorting anywhere by email) and a deletion of an unseen one.
        await h.request('POST', '/contacts', { key: p.secretKey, body: { email: `n${k++}@example.test` } });
        const [victim] = await h.sql<{ email: string }>(
          `select email from contacts where project_id = $1 and email like 'c%' order by random() limit 1`,
          [p.id],
        );
        await h.sql('delete from contacts where project_id = $1 and email = $2', [p.id, victim.email]);
        deleted.push(victim.email);
      });
      expect(new Set(seen).size).toBe(seen.length);
      const originals = seen.filter((e) => e.startsWith('c'));
      const remaining = (
        await h.sql<{ email: string }>(`select email from contacts where project_id = $1 and email like 'c%'`, [p.id])
      ).map((r) => r.email);
      // Every original still there was seen once; nothing was seen twice; deleted ones only if seen before deletion.
      for (const e of remaining) expect(originals).toContain(e);
      expect(originals.length).toBeGreaterThanOrEqual(remaining.length);
      expect(originals.length).toBeLessThanOrEqual(250);
    }
  });

  it('defaults to 20 newest first, clamps limit into 1..100 and rejects a non-integer limit', async () => {
    const p = await createProject(h);
    await seed(p, 120);
    const first = await h.request('GET', '/contacts', { key: p.secretKey });
    expect(first.body.data).toHaveLength(20);
    expect(first.body).toMatchObject({ hasMore: true, total: 120, cursor: expect.any(String) });
    const newest = (
      await h.sql<{ email: string }>(
        'select email from contacts where project_id = $1 order by created_at desc, id desc limit 20',
        [p.id],
      )
    ).map((r) => r.email);
    expect(first.body.data.map((c: { email: string }) => c.email)).toEqual(newest);
    expect(Object.keys(first.body.data[0]).sort()).toEqual([
      'createdAt',
      'data',
      'email',
      'id',
      'snoozedUntil',
      'subscribed',
      'updatedAt',
    ]);
    expect((await h.request('GET', '/contacts?limit=1000', { key: p.secretKey })).body.data).toHaveLength(100);
    expect((await h.request('GET', '/contacts?limit=0', { key: p.secretKey })).body.data).toHaveLength(1);
    expect((await h.request('GET', '/contacts?limit=-3', { key: p.secretKey })).body.data).toHaveLength(1);
    const bad = await h.request('GET', '/contacts?limit=abc', { key: p.secretKey });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0].field).toBe('querystring.limit');
    // Unknown sort and dir fall back to createdAt desc.
    const odd = await h.request('GET', '/contacts?sort=name&dir=sideways&limit=3', { key: p.secretKey });
    expect(odd.body.data.map((c: { email: string }) => c.email)).toEqual(newest.slice(0, 3));
  });

  it('filters by subscription state and by a case-insensitive email substring, wildcards literal', async () => {
    const p = await createProject(h);
    await seed(p, 30);
    for (const email of [
      'under_score@example.test',
      'underXscore@example.test',
      'per%cent@example.test',
      'back\\slash@example.test',
    ]) {
      await h.sql(`insert into contacts (id, project_id, email) values (gen_random_uuid(), $1, $2)`, [p.id, email]);
    }
    const subs = await h.request('GET', '/contacts?subscribed=false&limit=100', { key: p.secretKey });
    expect(subs.body.total).toBe(10);
    expect(subs.body.data.every((c: { subscribed: boolean }) => !c.subscribed)).toBe(true);
    expect((await h.request('GET', '/contacts?subscribed=true&limit=100', { key: p.secretKey })).body.total).toBe(24);
    expect((await h.request('GET', '/contacts?subscribed=maybe', { key: p.secretKey })).status).toBe(422);
    const s = await h.request('GET', '/contacts?search=C01', { key: p.secretKey });
    expect(s.body.data.map((c: { email: string }) => c.email).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `c01${i}@example.test`),
    );
    const us = await h.request('GET', `/contacts?search=${encodeURIComponent('under_')}`, { key: p.secretKey });
    expect(us.body.data.map((c: { email: string }) => c.email)).toEqual(['under_score@example.test']);
    const pc = await h.request('GET', `/contacts?search=${encodeURIComponent('%')}`, { key: p.secretKey });
    expect(pc.body.data.map((c: { email: string }) => c.email)).toEqual(['per%cent@example.test']);
    const bs = await h.request('GET', `/contacts?search=${encodeURIComponent('\\')}`, { key: p.secretKey });
    expect(bs.body.data.map((c: { email: string }) => c.email)).toEqual(['back\\slash@example.test']);
    const both = await h.request('GET', '/contacts?search=c02&subscribed=false', { key: p.secretKey });
    expect(both.body.data.map((c: { email: string }) => c.email).sort()).toEqual([
      'c021@example.test',
      'c024@example.test',
      'c027@example.test',
    ]);
  });

  it('pages a filtered list with the filter applied on every page', async () => {
    const p = await createProject(h);
    await seed(p, 90);
    const seen = await walk(p, 'limit=7&subscribed=false&search=c0');
    const expected = (
      await h.sql<{ email: string }>(
        `select email from contacts where project_id = $1 and not subscribed and email like 'c0%' order by created_at desc, id desc`,
        [p.id],
      )
    ).map((r) => r.email);
    expect(seen).toEqual(expected);
  });

  it('answers 400 for a cursor it did not issue or issued for another sort', async () => {
    const p = await createProject(h);
    await seed(p, 10);
    const first = await h.request('GET', '/contacts?limit=2', { key: p.secretKey });
    const forged = Buffer.from(
      JSON.stringify({ s: 'createdAt', d: 'desc', k: '2026-02-31 00:00:00+00', i: first.body.data[0].id }),
    ).toString('base64url');
    for (const cursor of [
      'garbage',
      'eyJ4IjoxfQ',
      forged,
      Buffer.from('{"s":"createdAt","d":"desc","k":"x","i":"y"}').toString('base64url'),
    ]) {
      const res = await h.request('GET', `/contacts?cursor=${cursor}`, { key: p.secretKey });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
    }
    expect(
      (await h.request('GET', `/contacts?limit=2&sort=email&cursor=${first.body.cursor}`, { key: p.secretKey })).status,
    ).toBe(400);
    expect(
      (await h.request('GET', `/contacts?limit=2&dir=asc&cursor=${first.body.cursor}`, { key: p.secretKey })).status,
    ).toBe(400);
    expect((await h.request('GET', `/contacts?limit=2&cursor=${first.body.cursor}`, { key: p.secretKey })).status).toBe(
      200,
    );
  });
});
