import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject, type TestUser } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';
import { eventually } from '../../test/sending-fixtures.js';
import { recordEvent } from '../events/emit.js';
import { startReceiver } from '../../test/webhook-receiver.js';
import { keyring, secretPlaces } from '../lib/secret-places.js';
import { openSecret } from '../lib/secrets.js';

// The /webhook-endpoints API: shapes, validation, roles, secrets, test sends, the log and retries.
describe('/webhook-endpoints', () => {
  let h: Harness;
  let p: TestProject;
  let other: TestProject;
  let member: TestUser;
  let admin: TestUser;
  let rx: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    rx = await startReceiver();
    h = await createHarness({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    p = await createProject(h);
    other = await createProject(h);
    member = await createVerifiedUser(h);
    admin = await createVerifiedUser(h);
    for (const [u, role] of [
      [member, 'MEMBER'],
      [admin, 'ADMIN'],
    ] as const) {
      const r = await h.request('POST', `/projects/${p.id}/members`, {
        cookie: p.owner.cookie,
        body: { email: u.email, role },
      });
      expect(r.status).toBeLessThan(300);
    }
  });
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  const as = (u: TestUser) => ({ cookie: u.cookie, headers: { 'x-project-id': p.id } });

  it('creates with the secret shown once; lists, reads, updates and deletes without it', async () => {
    const res = await h.request('POST', '/webhook-endpoints', {
      key: p.secretKey,
      body: { url: `${rx.base}/a`, events: ['email.delivered', 'contact.*', 'email.delivered'], description: 'CRM' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      url: `${rx.base}/a`,
      events: ['email.delivered', 'contact.*'],
      description: 'CRM',
      enabled: true,
      disabledReason: null,
    });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = res.body.id;
    const list = await h.request('GET', '/webhook-endpoints', { key: p.secretKey });
    expect(list.body.map((e: Json) => e.id)).toEqual([id]);
    expect(list.body[0].secret).toBeUndefined();
    const one = await h.request('GET', `/webhook-endpoints/${id}`, { key: p.secretKey });
    expect(one.body.secret).toBeUndefined();
    expect(one.text).not.toContain(res.body.secret);

    const upd = await h.request('PATCH', `/webhook-endpoints/${id}`, {
      key: p.secretKey,
      body: { events: ['*'], enabled: false, description: null },
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({
      events: ['*'],
      enabled: false,
      description: null,
      disabledReason: 'Disabled by a user',
    });

    const rot = await h.request('POST', `/webhook-endpoints/${id}/rotate-secret`, { key: p.secretKey });
    expect(rot.status).toBe(200);
    expect(rot.body.secret).toMatch(/^whsec_/);
    expect(rot.body.secret).not.toBe(res.body.secret);
    // Stored sealed: the row holds no whsec_, and opens to the secret shown.
    const stored = (await h.sql('select secret from webhook_endpoints where id = $1', [id]))[0].secret;
    expect(stored).not.toContain('whsec_');
    expect(openSecret(keyring(h.deps), stored, secretPlaces.webhookSecret(id))).toBe(rot.body.secret);

    // Another project's id is unknown; a malformed id too.
    expect((await h.request('GET', `/webhook-endpoints/${id}`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('DELETE', `/webhook-endpoints/${id}`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('GET', '/webhook-endpoints/not-a-uuid', { key: p.secretKey })).status).toBe(404);
    expect((await h.request('DELETE', `/webhook-endpoints/${id}`, { key: p.secretKey })).status).toBe(204);
    expect((await h.request('GET', `/webhook-endpoints/${id}`, { key: p.secretKey })).status).toBe(404);
  });

  it('refuses bad input with 422 and writes nothing', async () => {
    const bad = [
      { url: 'ftp://example.com/x', events: ['*'] },
      { url: 'not a url', events: ['*'] },
      { url: 'https://example.com/x', events: [] },
      { url: 'https://example.com/x', events: ['email.delivery'] },
      { url: 'https://example.com/x', events: ['workflow.*'] },
      { url: 'https://example.com/x', events: ['*'], secret: 'whsec_mine' },
    ];
    for (const body of bad) {
      const r = await h.request('POST', '/webhook-endpoints', { key: other.secretKey, body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    const hint = await h.request('POST', '/webhook-endpoints', {
      key: other.secretKey,
      body: { url: 'https://example.com/x', events: ['email.delivery'] },
    });
    expect(hint.body.error.errors[0].message).toContain('email.delivered');
    expect(await h.sql('select 1 from webhook_endpoints where project_id = $1', [other.id])).toEqual([]);
  });

  it('members read; only OWNER and ADMIN (or the secret key) change', async () => {
    const made = await h.request('POST', '/webhook-endpoints', {
      ...as(admin),
      body: { url: `${rx.base}/b`, events: ['*'] },
    });
    expect(made.status).toBe(201);
    expect((await h.request('GET', '/webhook-endpoints', as(member))).status).toBe(200);
    // Refused before the body is read: even a broken body answers 403, not 422.
    const denied = await h.request('POST', '/webhook-endpoints', { ...as(member), body: { url: 1 } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    expect((await h.request('POST', `/webhook-endpoints/${made.body.id}/rotate-secret`, as(member))).status).toBe(403);
    expect(
      (await h.request('PATCH', `/webhook-endpoints/${made.body.id}`, { ...as(member), body: { enabled: false } }))
        .status,
    ).toBe(403);
    expect((await h.request('DELETE', `/webhook-endpoints/${made.body.id}`, as(member))).status).toBe(403);
    expect((await h.sql('select enabled from webhook_endpoints where id = $1', [made.body.id]))[0].enabled).toBe(true);
    expect((await h.request('GET', '/webhook-endpoints', {})).status).toBe(401);
  });

  it('test sends a signed webhook.test now and logs it; the log pages by cursor; retry re-queues a delivery', async () => {
    const ep = (
      await h.request('POST', '/webhook-endpoints', {
        key: p.secretKey,
        body: { url: `${rx.base}/t`, events: ['contact.created'] },
      })
    ).body;
    const t = await h.request('POST', `/webhook-endpoints/${ep.id}/test`, { key: p.secretKey });
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({
      type: 'webhook.test',
      status: 'SUCCEEDED',
      attempts: 1,
      responseStatus: 200,
      responseBody: 'ok',
    });
    const hit = rx.at('/t')[0];
    expect(new Webhook(ep.secret).verify(hit.body, hit.headers)).toMatchObject({
      type: 'webhook.test',
      data: { endpointId: ep.id },
    });
    expect(hit.headers['webhook-id']).toBe(t.body.id);

    // Three contacts (no worker here: the deliveries stay PENDING) and the test: four rows, two pages.
    for (const email of ['c1@example.test', 'c2@example.test', 'c3@example.test']) {
      expect((await h.request('POST', '/contacts', { key: p.secretKey, body: { email } })).status).toBe(201);
    }
    const first = await h.request('GET', `/webhook-endpoints/${ep.id}/deliveries?limit=3`, { key: p.secretKey });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ hasMore: true, total: 4 });
    expect(first.body.data.map((x: Json) => x.payload.data.email)).toEqual([
      'c3@example.test',
      'c2@example.test',
      'c1@example.test',
    ]);
    const second = await h.request(
      'GET',
      `/webhook-endpoints/${ep.id}/deliveries?limit=3&cursor=${first.body.cursor}`,
      { key: p.secretKey },
    );
    expect(second.body).toMatchObject({ hasMore: false, cursor: null, total: 0 });
    expect(second.body.data.map((x: Json) => x.id)).toEqual([t.body.id]);
    const pending = await h.request('GET', `/webhook-endpoints/${ep.id}/deliveries?status=PENDING`, {
      key: p.secretKey,
    });
    expect(pending.body.total).toBe(3);
    expect(
      (await h.request('GET', `/webhook-endpoints/${ep.id}/deliveries?cursor=%%%`, { key: p.secretKey })).status,
    ).toBe(422);

    const target = first.body.data[0];
    await h.sql(`update webhook_deliveries set status = 'FAILED', attempts = 8 where id = $1`, [target.id]);
    const retry = await h.request('POST', `/webhook-endpoints/${ep.id}/deliveries/${target.id}/retry`, {
      key: p.secretKey,
    });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ id: target.id, status: 'PENDING', attempts: 0 });
    // Queued again in its row, due now, for the worker's dispatcher (no worker here: it stays so).
    const [again] = await h.sql(
      `select status, attempts, next_attempt_at <= now() as due from webhook_deliveries where id = $1`,
      [target.id],
    );
    expect(again).toEqual({ status: 'PENDING', attempts: 0, due: true });
    expect(
      (await h.request('POST', `/webhook-endpoints/${ep.id}/deliveries/${t.body.id}/retry`, { key: p.secretKey }))
        .status,
    ).toBe(409);
    expect(
      (await h.request('POST', `/webhook-endpoints/${ep.id}/deliveries/${target.id}/retry`, { key: other.secretKey }))
        .status,
    ).toBe(404);
  });

  it('a refused address is logged as a failed test, never called', async () => {
    const ep = (
      await h.request('POST', '/webhook-endpoints', {
        key: p.secretKey,
        body: { url: 'http://169.254.169.254/latest', events: ['*'] },
      })
    ).body;
    const t = await h.request('POST', `/webhook-endpoints/${ep.id}/test`, { key: p.secretKey });
    expect(t.body).toMatchObject({ status: 'FAILED', responseStatus: null });
    expect(t.body.error).toContain('metadata');
  });
  it("maps internal event names to webhook types (email.complaint → email.complained, …) in the event's own statement", async () => {
    const q = await createProject(h);
    const ep = (
      await h.request('POST', '/webhook-endpoints', {
        key: q.secretKey,
        body: { url: `${rx.base}/m`, events: ['email.*'] },
      })
    ).body;
    const c = (await h.request('POST', '/contacts', { key: q.secretKey, body: { email: 'm@example.test' } })).body;
    const names = [
      'email.delivery',
      'email.open',
      'email.click',
      'email.bounce',
      'email.complaint',
      'contact.subscribed',
      'signup',
    ];
    // The dispatchers LISTEN: each queued delivery notifies its endpoint's id at commit.
    const listener = await h.deps.pool.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query('listen pigeon_webhook_deliveries');
    for (const name of names)
      await recordEvent(h.deps.db, { projectId: q.id, contactId: c.id, name, data: { emailId: c.id } });
    await eventually(async () => heard.length >= 5, 5_000, 'five notifications');
    listener.release(true);
    expect(new Set(heard)).toEqual(new Set([ep.id]));
    const rows = await h.sql(
      `select d.event_type, d.payload, e.name from webhook_deliveries d join events e on e.id = d.event_id
      where d.endpoint_id = $1 order by e.id`,
      [ep.id],
    );
    expect(rows.map((r) => [r.name, r.event_type])).toEqual([
      ['email.delivery', 'email.delivered'],
      ['email.open', 'email.opened'],
      ['email.click', 'email.clicked'],
      ['email.bounce', 'email.bounced'],
      ['email.complaint', 'email.complained'],
    ]);
    expect(rows[4].payload).toMatchObject({
      type: 'email.complained',
      data: { emailId: c.id, contactId: c.id, projectId: q.id },
    });
    // Each queued PENDING, due at once, ordered by the email it is about; no job per delivery.
    const queued = await h.sql(
      `select status, subject, next_attempt_at <= now() as due from webhook_deliveries where endpoint_id = $1`,
      [ep.id],
    );
    expect(queued).toEqual(Array(5).fill({ status: 'PENDING', subject: c.id, due: true }));
    const jobs = await h.sql(`select count(*)::int as n from ${JOBS} j where queue_name like 'webhooks:%'`);
    expect(jobs[0].n).toBe(0);
  });
});
