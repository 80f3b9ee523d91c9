import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';
import { assertWithinLimit } from './billing.service.js';

/** Billing without a payment provider: monthly limits and consumption, no checkout. */
describe('billing', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('answers 404 for checkout, portal and invoices when no payment provider is configured', async () => {
    const p = await createProject(h);
    for (const [m, path] of [
      ['POST', 'checkout'],
      ['POST', 'billing-portal'],
      ['GET', 'billing-invoices'],
    ]) {
      const res = await h.request(m, `/users/@me/projects/${p.id}/${path}`, { cookie: p.owner.cookie });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
    expect((await h.request('GET', '/config')).body.billing).toEqual({ enabled: false });
  });

  it('reads and sets monthly limits (OWNER only) and reports consumption per source', async () => {
    const p = await createProject(h);
    const base = `/users/@me/projects/${p.id}`;
    expect((await h.request('GET', `${base}/billing-limits`, { cookie: p.owner.cookie })).body).toEqual({
      transactional: null,
      campaigns: null,
      workflows: null,
    });
    const admin = await createVerifiedUser(h);
    await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: admin.email, role: 'ADMIN' },
    });
    const limits = { transactional: 2, campaigns: null, workflows: 10 };
    expect((await h.request('PUT', `${base}/billing-limits`, { cookie: admin.cookie, body: limits })).status).toBe(403);
    expect(
      (
        await h.request('PUT', `${base}/billing-limits`, {
          cookie: p.owner.cookie,
          body: { ...limits, transactional: -1 },
        })
      ).status,
    ).toBe(422);
    const put = await h.request('PUT', `${base}/billing-limits`, { cookie: p.owner.cookie, body: limits });
    expect(put.status).toBe(200);
    expect(put.body).toEqual(limits);

    for (const [source, n] of [
      ['TRANSACTIONAL', 2],
      ['CAMPAIGN', 3],
      ['TEST', 1],
    ] as const) {
      for (let i = 0; i < n; i++) {
        await h.sql(
          `insert into emails (id, project_id, to_email, from_email, subject, body, source_type) values (gen_random_uuid(), $1, 'a@example.test', 'b@example.test', 's', 'b', $2)`,
          [p.id, source],
        );
      }
    }
    const used = await h.request('GET', `${base}/billing-consumption`, { cookie: p.owner.cookie });
    expect(used.body).toEqual({
      periodStart: expect.stringMatching(/-01T00:00:00.000Z$/),
      transactional: 2,
      campaigns: 3,
      workflows: 0,
    });

    await expect(assertWithinLimit(h.deps.db, p.id, 'transactional', 1, new Date())).rejects.toMatchObject({
      code: 'BILLING_LIMIT_EXCEEDED',
      status: 429,
      details: { source: 'transactional', limit: 2, used: 2, requested: 1 },
    });
    await expect(assertWithinLimit(h.deps.db, p.id, 'campaigns', 1000, new Date())).resolves.toBeUndefined();
    await expect(assertWithinLimit(h.deps.db, p.id, 'workflows', 10, new Date())).resolves.toBeUndefined();
  });

  it('lets concurrent sends reach the transactional cap exactly, never pass it', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    const put = await h.request('PUT', `/users/@me/projects/${p.id}/billing-limits`, {
      cookie: p.owner.cookie,
      body: { transactional: 5, campaigns: null, workflows: null },
    });
    expect(put.status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        h.request('POST', '/v1/send', {
          key: p.secretKey,
          body: { to: `cap-${i}@example.test`, from: `hi@${d.domain}`, subject: 'Hi', body: '<p>Hi</p>' },
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    const [row] = await h.sql(`select count(*)::int as n from emails where project_id = $1`, [p.id]);
    expect(row.n).toBe(5);
  });
});
