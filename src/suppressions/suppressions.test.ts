import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createTemplate, createVerifiedDomain } from '../../test/sending-fixtures.js';
import * as suppressions from './suppressions.repo.js';

/** The suppression list API, the contact's `suppression` field, and the marketing rule over it. */
describe('suppressions', () => {
  let h: Harness;
  let p: TestProject;
  const req = (method: string, path: string, body?: unknown) => h.request(method, path, { key: p.secretKey, body });
  const rows = () => h.sql('select email, reason from suppressions where project_id = $1 order by email', [p.id]);

  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h?.close());

  it('adds addresses lower-cased and trimmed, once, with the default reason manual; existing ones keep theirs', async () => {
    p = await createProject(h);
    const res = await req('POST', '/suppressions', {
      emails: ['  Ann@Example.TEST ', 'ann@example.test', 'bob@example.test'],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ added: 2, alreadySuppressed: 0 });
    const again = await req('POST', '/suppressions', {
      emails: ['BOB@example.test', 'cat@example.test'],
      reason: 'unsubscribe',
    });
    expect(again.body).toEqual({ added: 1, alreadySuppressed: 1 });
    expect(await rows()).toEqual([
      { email: 'ann@example.test', reason: 'manual' },
      { email: 'bob@example.test', reason: 'manual' },
      { email: 'cat@example.test', reason: 'unsubscribe' },
    ]);
  });

  it('refuses bad input with a 4xx and changes nothing', async () => {
    p = await createProject(h);
    const bad = await req('POST', '/suppressions', { emails: ['ok@example.test', 'not-an-address'] });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect((await req('POST', '/suppressions', { emails: ['ok@example.test'], reason: 'HARD_BOUNCE' })).status).toBe(
      422,
    );
    expect((await req('POST', '/suppressions', { emails: [] })).status).toBe(422);
    const tooMany = Array.from({ length: 1001 }, (_, i) => `u${i}@example.test`);
    expect((await req('POST', '/suppressions', { emails: tooMany })).status).toBe(422);
    expect(await rows()).toEqual([]);
    expect((await req('GET', '/suppressions?reason=spam')).status).toBe(422);
    expect((await req('GET', '/suppressions?cursor=bm9wZQ')).status).toBe(422);
    expect((await h.request('GET', '/suppressions')).status).toBe(401);
  });

  it('lists newest first in cursor pages, filtered by reason', async () => {
    p = await createProject(h);
    const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n));
    await h.deps.db.transaction(async (tx) => {
      for (let i = 0; i < 5; i++) await suppressions.add(tx, p.id, `m${i}@example.test`, 'manual', at(i));
      // As feedback/consequences.ts adds them: the address normalised, the reason as stored.
      await suppressions.add(tx, p.id, 'Bounced@Example.test', 'bounce', at(10));
      await suppressions.add(tx, p.id, 'spam@example.test', 'complaint', at(11));
    });
    // Two rows in the same microsecond: the email breaks the tie.
    await h.sql(
      `insert into suppressions (project_id, email, reason, created_at) values ($1, 'tie-a@example.test', 'manual', $2), ($1, 'tie-b@example.test', 'manual', $2)`,
      [p.id, at(3)],
    );

    const seen: string[] = [];
    let cursor: string | null = null;
    let first = true;
    do {
      const res = await req('GET', `/suppressions?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.total).toBe(first ? 9 : 0);
      first = false;
      seen.push(...res.body.data.map((s: { email: string }) => s.email));
      cursor = res.body.cursor;
      expect(res.body.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([
      'spam@example.test',
      'bounced@example.test',
      'm4@example.test',
      'tie-b@example.test',
      'tie-a@example.test',
      'm3@example.test',
      'm2@example.test',
      'm1@example.test',
      'm0@example.test',
    ]);

    const bounces = await req('GET', '/suppressions?reason=bounce');
    expect(bounces.body).toEqual({
      data: [{ email: 'bounced@example.test', reason: 'bounce', createdAt: at(10).toISOString() }],
      cursor: null,
      hasMore: false,
      total: 1,
    });
    expect(
      (await req('GET', '/suppressions?reason=complaint')).body.data.map((s: { reason: string }) => s.reason),
    ).toEqual(['complaint']);
    expect((await req('GET', '/suppressions?reason=unsubscribe')).body.total).toBe(0);
  });

  it('removes an address given in any case, URL-encoded; 404 when it is not suppressed', async () => {
    p = await createProject(h);
    await req('POST', '/suppressions', { emails: ['dan+tag@example.test', 'eve@example.test'] });
    const res = await req('DELETE', `/suppressions/${encodeURIComponent('Dan+Tag@Example.test')}`);
    expect(res.status, res.text).toBe(204);
    expect(await rows()).toEqual([{ email: 'eve@example.test', reason: 'manual' }]);
    const gone = await req('DELETE', `/suppressions/${encodeURIComponent('dan+tag@example.test')}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('shows the suppression on the contact (null when none), keeping the contact fields', async () => {
    p = await createProject(h);
    const created = await req('POST', '/contacts', { email: 'Fay@example.test', data: { plan: 'pro' } });
    const id = created.body.id;
    const before = await req('GET', `/contacts/${id}`);
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      id,
      email: 'fay@example.test',
      subscribed: true,
      snoozedUntil: null,
      data: { plan: 'pro' },
      createdAt: created.body.createdAt,
      updatedAt: created.body.updatedAt,
      suppression: null,
      topics: [],
    });
    await req('POST', '/suppressions', { emails: ['FAY@example.test'], reason: 'complaint' });
    const after = await req('GET', `/contacts/${id}`);
    expect(after.body.suppression).toEqual({
      reason: 'complaint',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(after.body.subscribed).toBe(true);
    await req('DELETE', '/suppressions/fay@example.test');
    expect((await req('GET', `/contacts/${id}`)).body.suppression).toBeNull();
  });

  it('a suppressed address gets no MARKETING mail, and still gets TRANSACTIONAL mail', async () => {
    p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    const news = await createTemplate(h, p.id, {
      subject: 'News',
      body: '<p>n</p>',
      from: `news@${d.domain}`,
      type: 'MARKETING',
    });
    const receipt = await createTemplate(h, p.id, {
      subject: 'Receipt',
      body: '<p>r</p>',
      from: `shop@${d.domain}`,
      type: 'TRANSACTIONAL',
    });
    await req('POST', '/suppressions', { emails: ['Gus@example.test'] });
    for (const template of [news, receipt]) {
      const res = await req('POST', '/v1/send', { to: 'gus@example.test', template });
      expect(res.status, res.text).toBe(200);
    }
    expect(await h.sql(`select subject, status from emails where project_id = $1 order by subject`, [p.id])).toEqual([
      { subject: 'News', status: 'SUPPRESSED' },
      { subject: 'Receipt', status: 'PENDING' },
    ]);
  });
});
