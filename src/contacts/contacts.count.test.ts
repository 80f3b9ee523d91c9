import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { compactContactCounts } from './contacts.repo.js';

/**
 * The unfiltered `total` of `GET /contacts` is read from `contact_counts` (deltas kept by triggers),
 * not from `count(*)`: after every kind of write it must still equal the real number of contacts.
 */
describe('contact count kept beside the contacts', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  const total = async (p: TestProject) => {
    const res = await h.request('GET', '/contacts?limit=1', { key: p.secretKey });
    expect(res.status).toBe(200);
    return res.body.total as number;
  };
  const real = async (p: TestProject) =>
    (await h.sql('select count(*)::int as n from contacts where project_id = $1', [p.id]))[0].n as number;

  it('follows creates, upserts, tracked events, deletes and SQL bulk writes, per project', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    expect(await total(p)).toBe(0);

    expect((await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'a@example.test' } })).status).toBe(
      201,
    );
    // The same address again is an update, not a second contact.
    await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'a@example.test', data: { plan: 'pro' } },
    });
    expect(await total(p)).toBe(1);

    // A tracked event creates its contact once; a second event for it creates nothing.
    for (const email of ['t@example.test', 't@example.test', 'u@example.test']) {
      expect(
        (await h.request('POST', '/v1/track', { key: p.publicKey, body: { event: 'signed-up', email } })).status,
      ).toBe(200);
    }
    expect(await total(p)).toBe(3);

    await h.sql(
      `insert into contacts (id, project_id, email, created_at, updated_at)
      select gen_random_uuid(), $1, 'bulk' || i || '@example.test', now(), now() from generate_series(1, 500) i`,
      [p.id],
    );
    await h.sql(
      `insert into contacts (id, project_id, email, created_at, updated_at)
      select gen_random_uuid(), $1, 'o' || i || '@example.test', now(), now() from generate_series(1, 7) i`,
      [other.id],
    );
    expect(await total(p)).toBe(503);
    expect(await total(other)).toBe(7);

    const [a] = await h.sql('select id from contacts where project_id = $1 and email = $2', [p.id, 'a@example.test']);
    expect((await h.request('DELETE', `/contacts/${a.id}`, { key: p.secretKey })).status).toBe(204);
    await h.sql(`delete from contacts where project_id = $1 and email like 'bulk1%'`, [p.id]);
    expect(await total(p)).toBe(await real(p));
    expect(await total(p)).toBe(503 - 1 - 111);

    // A rolled-back insert leaves no delta behind.
    await expect(
      h.sql(
        `insert into contacts (id, project_id, email, created_at, updated_at)
      select gen_random_uuid(), $1, 'dup@example.test', now(), now() from generate_series(1, 2)`,
        [p.id],
      ),
    ).rejects.toThrow();
    expect(await total(p)).toBe(391);

    // Folding the deltas keeps every project's sum and leaves one row per project.
    await compactContactCounts(h.deps.db);
    const rows = await h.sql(
      'select count(*)::int as rows, sum(n)::int as n from contact_counts where project_id = $1',
      [p.id],
    );
    expect(rows[0]).toEqual({ rows: 1, n: 391 });
    expect(await total(p)).toBe(391);
    expect(await total(other)).toBe(7);

    // Filtered totals are still counted over the rows themselves.
    const filtered = await h.request('GET', '/contacts?limit=1&search=bulk2', { key: p.secretKey });
    expect(filtered.body.total).toBe(
      (await h.sql(`select count(*)::int as n from contacts where project_id = $1 and email like 'bulk2%'`, [p.id]))[0]
        .n,
    );
  });

  it('stays exact under concurrent writers', async () => {
    const p = await createProject(h);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        h.request('POST', '/v1/track', {
          key: p.publicKey,
          body: { event: 'visit', email: `c${i % 25}@example.test` },
        }),
      ),
    );
    expect(await real(p)).toBe(25);
    expect(await total(p)).toBe(25);
  });

  it('is emptied by a project reset, and deleting a project with contacts works', async () => {
    const p = await createProject(h);
    await h.sql(
      `insert into contacts (id, project_id, email, created_at, updated_at)
      select gen_random_uuid(), $1, 'r' || i || '@example.test', now(), now() from generate_series(1, 30) i`,
      [p.id],
    );
    expect((await h.request('POST', `/users/@me/projects/${p.id}/reset`, { cookie: p.owner.cookie })).status).toBe(200);
    expect(await total(p)).toBe(0);

    await h.sql(
      `insert into contacts (id, project_id, email, created_at, updated_at)
      select gen_random_uuid(), $1, 'd' || i || '@example.test', now(), now() from generate_series(1, 30) i`,
      [p.id],
    );
    const del = await h.request('DELETE', `/users/@me/projects/${p.id}`, { cookie: p.owner.cookie });
    expect(del.status).toBe(204);
    expect(await h.sql('select * from contact_counts where project_id = $1', [p.id])).toEqual([]);
  });
});
