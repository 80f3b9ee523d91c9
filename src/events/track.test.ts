import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

// POST /v1/track and POST /events/track (contact upsert, data rules, subscription, reserved names).
describe('POST /v1/track', () => {
  let h: Harness;
  let p: TestProject;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
  });
  afterAll(async () => h?.close());

  const track = (body: unknown, opts: { key?: string; headers?: Record<string, string> } = {}) =>
    h.request('POST', '/v1/track', { key: opts.key ?? p.publicKey, body, headers: opts.headers });

  it('creates the contact (subscribed) and a new event every time', async () => {
    const a = await track({ email: 'T1@Example.test', event: 'signed-up', data: { plan: 'pro' } });
    expect(a.status).toBe(200);
    expect(a.body.success).toBe(true);
    expect(Object.keys(a.body.data).sort()).toEqual(['contact', 'event', 'timestamp']);
    expect(Date.parse(a.body.data.timestamp)).not.toBeNaN();
    const b = await track({ email: 't1@example.test', event: 'signed-up' });
    expect(b.body.data.contact).toBe(a.body.data.contact);
    expect(b.body.data.event).not.toBe(a.body.data.event);
    const [c] = await h.sql('select email, subscribed, data from contacts where id = $1', [a.body.data.contact]);
    expect(c).toEqual({ email: 't1@example.test', subscribed: true, data: { plan: 'pro' } });
    const events = await h.sql(
      `select id, name, data, contact_id from events where contact_id = $1 order by created_at, id`,
      [c ? a.body.data.contact : null],
    );
    expect(events.map((e) => [e.id, e.name])).toEqual([
      [a.body.data.event, 'signed-up'],
      [b.body.data.event, 'signed-up'],
    ]);
    expect(events[0].data).toEqual({ plan: 'pro' });
  });

  it('applies the data rules: objects stored, one-off values only on the event, null deletes, empty ignored, reserved dropped', async () => {
    await track({ email: 'd1@example.test', event: 'e', data: { keep: 'x', gone: 'y' } });
    const res = await track({
      email: 'd1@example.test',
      event: 'purchased',
      data: {
        address: { city: 'Oslo' },
        gone: null,
        keep: '',
        orderId: { value: 'o-9', persistent: false },
        vip: { value: true, persistent: true },
        email: 'spoof@example.test',
        unsubscribeUrl: 'x',
      },
    });
    expect(res.status).toBe(200);
    const [c] = await h.sql('select data, email from contacts where id = $1', [res.body.data.contact]);
    expect(c).toEqual({ email: 'd1@example.test', data: { keep: 'x', address: { city: 'Oslo' }, vip: true } });
    const [e] = await h.sql('select data from events where id = $1', [res.body.data.event]);
    expect(e.data).toEqual({ address: { city: 'Oslo' }, orderId: 'o-9', vip: true });
  });

  it('keeps an existing subscription unless given; `subscribed: false` tracks without resubscribing', async () => {
    const first = await track({ email: 's1@example.test', event: 'e', subscribed: false });
    const id = first.body.data.contact;
    expect((await h.sql('select subscribed from contacts where id = $1', [id]))[0].subscribed).toBe(false);
    await track({ email: 's1@example.test', event: 'e' });
    expect((await h.sql('select subscribed from contacts where id = $1', [id]))[0].subscribed).toBe(false);
    await track({ email: 's1@example.test', event: 'e', subscribed: true });
    expect((await h.sql('select subscribed from contacts where id = $1', [id]))[0].subscribed).toBe(true);
    // The change is recorded like on /v1/send.
    expect(
      await h.sql(`select 1 from events where contact_id = $1 and name = 'contact.subscribed'`, [id]),
    ).toHaveLength(1);
  });

  it('422 for a bad email, an empty or reserved event name', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{ email: 'nope', event: 'e' }, 'email', 'invalid_string'],
      [{ event: 'e' }, 'email', 'invalid_type'],
      [{ email: 'a@example.test', event: '' }, 'event', 'too_small'],
      [{ email: 'a@example.test', event: '   ' }, 'event', 'too_small'],
      [{ email: 'a@example.test' }, 'event', 'invalid_type'],
      [{ email: 'a@example.test', event: 'e', subscribed: 'yes' }, 'subscribed', 'invalid_type'],
      [{ email: 'a@example.test', event: 'e', data: 'x' }, 'data', 'invalid_type'],
    ];
    for (const [body, field, code] of cases) {
      const res = await track(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.errors[0], JSON.stringify(body)).toMatchObject({ field, code });
    }
    for (const event of [
      'email.open',
      'email.anything',
      'contact.subscribed',
      'contact.unsubscribed',
      'segment.vip-users.entry',
      'segment.x.exit',
    ]) {
      const res = await track({ email: 'a@example.test', event });
      expect(res.status, event).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors[0]).toMatchObject({ field: 'event', code: 'reserved_event' });
    }
    expect(
      await h.sql(`select 1 from contacts where project_id = $1 and email = 'a@example.test'`, [p.id]),
    ).toHaveLength(0);
  });

  it('takes the public key only; the secret key is 401', async () => {
    const res = await track({ email: 'k@example.test', event: 'e' }, { key: p.secretKey });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('refuses a repeated Idempotency-Key with 409 and records one event', async () => {
    const key = `track-${Date.now()}`;
    const first = await track({ email: 'i@example.test', event: 'paid' }, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(200);
    const again = await track({ email: 'i@example.test', event: 'paid' }, { headers: { 'Idempotency-Key': key } });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({
      key,
      originalRequest: { method: 'POST', path: '/v1/track' },
      originalStatusCode: 200,
    });
    expect(
      await h.sql(`select 1 from events where contact_id = $1 and name = 'paid'`, [first.body.data.contact]),
    ).toHaveLength(1);
  });

  it('POST /events/track is the same for the dashboard (secret key or session)', async () => {
    const bySecret = await h.request('POST', '/events/track', {
      key: p.secretKey,
      body: { email: 'dash@example.test', event: 'clicked-demo' },
    });
    expect(bySecret.status).toBe(200);
    expect(bySecret.body.data.contact).toBeTruthy();
    const bySession = await h.request('POST', '/events/track', {
      cookie: p.owner.cookie,
      headers: { 'X-Project-Id': p.id },
      body: { email: 'dash@example.test', event: 'clicked-demo' },
    });
    expect(bySession.status).toBe(200);
    expect(bySession.body.data.contact).toBe(bySecret.body.data.contact);
    expect(
      (await h.request('POST', '/events/track', { key: p.publicKey, body: { email: 'dash@example.test', event: 'x' } }))
        .status,
    ).toBe(401);
    expect(
      (
        await h.request('POST', '/events/track', {
          key: p.secretKey,
          body: { email: 'dash@example.test', event: 'email.sent' },
        })
      ).body.error.errors[0].code,
    ).toBe('reserved_event');
  });

  it('group-commits concurrent tracks: every reply its own contact and event, one flip, projects apart', async () => {
    const q = await createProject(h);
    const old = await track({ email: 'g-old@example.test', event: 'seed', data: { a: 1, b: 2 } });
    const oldId = old.body.data.contact;
    const reqs = [
      ...Array.from({ length: 40 }, (_, i) => ({
        key: p.publicKey,
        body: { email: `g${i}@example.test`, event: 'visit', data: { n: i } },
      })),
      ...Array.from({ length: 4 }, () => ({ key: p.publicKey, body: { email: 'G-Old@example.test', event: 'visit' } })),
      {
        key: p.publicKey,
        body: { email: 'g-old@example.test', event: 'visit', subscribed: false, data: { b: null, c: 3 } },
      },
      ...Array.from({ length: 10 }, (_, i) => ({
        key: q.publicKey,
        body: { email: `g${i}@example.test`, event: 'visit', data: { q: true } },
      })),
    ];
    const res = await Promise.all(reqs.map((r) => track(r.body, { key: r.key })));
    expect(res.map((r) => r.status)).toEqual(reqs.map(() => 200));

    // Each reply names the contact of its own project and email, and its own event.
    for (const [i, r] of res.entries()) {
      const project = reqs[i].key === p.publicKey ? p.id : q.id;
      const [c] = await h.sql('select id from contacts where project_id = $1 and email = $2', [
        project,
        reqs[i].body.email.toLowerCase(),
      ]);
      expect(r.body.data.contact).toBe(c.id);
      const [e] = await h.sql('select contact_id, name, data from events where id = $1', [r.body.data.event]);
      expect(e).toMatchObject({ contact_id: c.id, name: 'visit' });
    }
    expect(new Set(res.map((r) => r.body.data.event)).size).toBe(reqs.length);
    expect(
      await h.sql('select data from contacts where project_id = $1 and email = $2', [p.id, 'g7@example.test']),
    ).toEqual([{ data: { n: 7 } }]);
    expect(
      await h.sql('select data from contacts where project_id = $1 and email = $2', [q.id, 'g7@example.test']),
    ).toEqual([{ data: { q: true } }]);
    expect(await h.sql('select subscribed, data from contacts where id = $1', [oldId])).toEqual([
      { subscribed: false, data: { a: 1, c: 3 } },
    ]);
    expect(
      await h.sql(`select name, count(*)::int as n from events where contact_id = $1 group by name order by name`, [
        oldId,
      ]),
    ).toEqual([
      { name: 'contact.unsubscribed', n: 1 },
      { name: 'seed', n: 1 },
      { name: 'visit', n: 5 },
    ]);
    // Batched: fewer transactions than events wrote them (rows of one statement share its xmin).
    const [{ txs, n }] = await h.sql(
      `select count(distinct xmin::text)::int as txs, count(*)::int as n from events
      where project_id = $1 and name = 'visit'`,
      [p.id],
    );
    expect(n).toBe(45);
    expect(txs).toBeLessThan(45);
  });
});
