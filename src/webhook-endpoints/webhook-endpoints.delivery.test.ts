import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../../test/dns-server.js';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';
import { createVerifiedDomain, eventually, runJobsNow, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { one } from '../../test/segments-helpers.js';
import { startReceiver } from '../../test/webhook-receiver.js';

// Deliveries end to end: real events, the worker, a receiver on 127.0.0.1 that verifies signatures.
describe('event webhook deliveries', () => {
  let h: Harness;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let p: TestProject;
  let other: TestProject;
  let d: TestDomain;
  let rx: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    rx = await startReceiver();
    sink = await startSmtpSink();
    dns = await startDnsServer();
    h = await createHarness({
      worker: true,
      env: { SMTP_URL: sink.url, DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' },
    });
    p = await createProject(h);
    other = await createProject(h);
    d = await createVerifiedDomain(h, p.id, { dns });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
    await dns?.close();
    await rx?.close();
  });

  const create = async (proj: TestProject, path: string, events: string[]) => {
    const res = await h.request('POST', '/webhook-endpoints', {
      key: proj.secretKey,
      body: { url: `${rx.base}${path}`, events },
    });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_/);
    return res.body as { id: string; secret: string };
  };
  /** The receiver's requests to `path`, each verified with the endpoint's secret (throws when a signature is wrong). */
  const verified = (path: string, secret: string) =>
    rx.at(path).map((r) => ({
      id: r.headers['webhook-id'],
      payload: new Webhook(secret).verify(r.body, r.headers) as {
        type: string;
        timestamp: string;
        data: Record<string, Json>;
      },
    }));

  it('signs every delivery per Standard Webhooks; a send delivers email.sent, then email.delivered, and the log shows both', async () => {
    const ep = await create(p, '/emails', ['email.*']);
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'hook-reader@example.test', from: `hello@${d.domain}`, subject: 'Hi', body: '<p>Hello</p>' },
    });
    expect(res.status).toBe(200);
    const emailId = res.body.data.emails[0].email;
    const contactId = res.body.data.emails[0].contact.id;
    await eventually(async () => rx.at('/emails').length >= 2, 30_000, 'two deliveries');
    const got = verified('/emails', ep.secret);
    // A wrong secret fails verification: the check above is a real one.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        rx.at('/emails')[0].body,
        rx.at('/emails')[0].headers,
      ),
    ).toThrow();
    expect(got.map((g) => g.payload.type)).toEqual(['email.sent', 'email.delivered']);
    for (const g of got) {
      expect(g.payload.data).toMatchObject({ emailId, contactId, projectId: p.id, subject: 'Hi' });
      expect(g.payload.data.messageId).toEqual(expect.any(String));
      expect(Date.parse(g.payload.timestamp)).not.toBeNaN();
    }
    // The contact this send created is not an email.* event: not offered to this endpoint.
    expect(got.some((g) => g.payload.type.startsWith('contact.'))).toBe(false);

    const log = await eventually(
      async () => {
        const l = await h.request('GET', `/webhook-endpoints/${ep.id}/deliveries`, { key: p.secretKey });
        return l.body.data?.every((x: Json) => x.status === 'SUCCEEDED') && l.body.data.length === 2 ? l : null;
      },
      15_000,
      'the log',
    );
    expect(log.body.total).toBe(2);
    expect(log.body.data.map((x: Json) => x.type).sort()).toEqual(['email.delivered', 'email.sent']);
    for (const x of log.body.data) {
      expect(x).toMatchObject({ attempts: 1, responseStatus: 200, responseBody: 'ok', error: null, endpointId: ep.id });
      expect(x.latencyMs).toBeGreaterThanOrEqual(0);
      expect(got.find((g) => g.id === x.id)?.payload).toEqual(x.payload);
    }
  });

  it('a receiver answering 500 twice gets the third attempt, with the same webhook-id; the log keeps the cut answer', async () => {
    const ep = await create(p, '/flaky', ['contact.created']);
    const c = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'flaky@example.test', data: { plan: 'pro' } },
    });
    expect(c.status).toBe(201);
    const delivery = await eventually(
      async () => {
        await runJobsNow(h);
        const [row] = await h.sql(`select * from webhook_deliveries where endpoint_id = $1`, [ep.id]);
        return row?.status === 'SUCCEEDED' ? row : null;
      },
      30_000,
      'the third attempt',
    );
    expect(delivery.attempts).toBe(3);
    const hits = verified('/flaky', ep.secret);
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((x) => x.id))).toEqual(new Set([delivery.id]));
    expect(hits[2].payload).toMatchObject({
      type: 'contact.created',
      data: { contactId: c.body.id, email: 'flaky@example.test', data: { plan: 'pro' }, projectId: p.id },
    });
  });

  it('a failing delivery waits by the backoff schedule and keeps the answer cut to 2 KiB', async () => {
    const ep = await create(p, '/fail-backoff', ['contact.deleted']);
    const c = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'gone@example.test' } });
    expect((await h.request('DELETE', `/contacts/${c.body.id}`, { key: p.secretKey })).status).toBe(204);
    const row = await eventually(
      async () => {
        const [r] = await h.sql(
          `select *, extract(epoch from next_attempt_at - last_attempt_at) as wait from webhook_deliveries where endpoint_id = $1`,
          [ep.id],
        );
        return r?.attempts === 1 ? r : null;
      },
      15_000,
      'the first attempt',
    );
    expect(row).toMatchObject({ status: 'PENDING', response_status: 500, error: 'HTTP 500' });
    expect(row.response_body).toHaveLength(2048);
    expect(Number(row.wait)).toBeCloseTo(5, 0);
    const [endpoint] = await h.sql(`select failing_since, enabled from webhook_endpoints where id = $1`, [ep.id]);
    expect(endpoint.failing_since).not.toBeNull();
    expect(endpoint.enabled).toBe(true);
  });

  it("a disabled endpoint gets nothing, another project's events never arrive, tracked events only when named", async () => {
    const sentinel = await create(p, '/all', ['*']);
    const named = await create(p, '/named', ['signup']);
    const off = await create(p, '/off', ['*']);
    expect(
      (await h.request('PATCH', `/webhook-endpoints/${off.id}`, { key: p.secretKey, body: { enabled: false } })).body
        .enabled,
    ).toBe(false);
    const foreign = await create(other, '/foreign', ['*', 'signup']);

    const t = await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'tracked@example.test', event: 'signup', data: { plan: 'pro' } },
    });
    expect(t.status).toBe(200);
    await eventually(
      async () => rx.at('/named').length >= 1 && rx.at('/all').length >= 1,
      15_000,
      'the sentinel deliveries',
    );
    const all = verified('/all', sentinel.secret).map((g) => g.payload);
    expect(all.map((x) => x.type)).toEqual(['contact.created']);
    expect(all[0].data).toMatchObject({ contactId: t.body.data.contact, email: 'tracked@example.test' });
    const namedHits = verified('/named', named.secret).map((g) => g.payload);
    expect(namedHits).toEqual([
      expect.objectContaining({
        type: 'signup',
        data: expect.objectContaining({ plan: 'pro', contactId: t.body.data.contact, projectId: p.id }),
      }),
    ]);
    // Written in the same statements as those above: had they been queued, they would be rows now.
    expect(await h.sql(`select 1 from webhook_deliveries where endpoint_id = any($1)`, [[off.id, foreign.id]])).toEqual(
      [],
    );
    expect(rx.at('/off')).toEqual([]);
    expect(rx.at('/foreign')).toEqual([]);
  });

  it('announces contact.updated when a track or a send changed an existing contact, never when it changed nothing', async () => {
    const q = await createProject(h);
    const qd = await createVerifiedDomain(h, q.id, { dns });
    const ep = await create(q, '/updates', ['contact.created', 'contact.updated']);
    const track = async (data: Record<string, unknown>, subscribed?: boolean) => {
      const res = await h.request('POST', '/v1/track', {
        key: q.publicKey,
        body: { email: 'Up@rcpt.test', event: 'visit', data, subscribed },
      });
      expect(res.status, res.text).toBe(200);
    };
    const send = async (data: Record<string, unknown>) => {
      const res = await h.request('POST', '/v1/send', {
        key: q.secretKey,
        body: { to: 'up@rcpt.test', from: `hi@${qd.domain}`, subject: 'S', body: '<p>B</p>', data },
      });
      expect(res.status, res.text).toBe(200);
    };
    await track({ plan: 'free' }); // created
    await track({ plan: 'free', ref: { value: 'x', persistent: false } }); // same data, a one-off value: no change
    await track({ plan: 'pro' }); // updated
    await track({}, false); // unsubscribed: updated
    await send({ seats: 3 }); // updated
    await send({ seats: 3 }); // no change
    const rows = await h.sql(
      `select event_type as type, payload->'data'->'subscribed' as subscribed, payload->'data'->'data' as data
      from webhook_deliveries where endpoint_id = $1 order by id`,
      [ep.id],
    );
    expect(rows).toEqual([
      { type: 'contact.created', subscribed: true, data: { plan: 'free' } },
      { type: 'contact.updated', subscribed: true, data: { plan: 'pro' } },
      { type: 'contact.updated', subscribed: false, data: { plan: 'pro' } },
      { type: 'contact.updated', subscribed: false, data: { plan: 'pro', seats: 3 } },
    ]);
    await eventually(async () => rx.at('/updates').length >= 4, 15_000, 'four deliveries');
    expect(
      verified('/updates', ep.secret)
        .map((g) => g.payload.type)
        .sort(),
    ).toEqual(['contact.created', 'contact.updated', 'contact.updated', 'contact.updated']);
  });

  it("an endpoint failing for 5 days is disabled and the project's admins are mailed", async () => {
    const ep = await create(p, '/fail-forever', ['contact.updated']);
    await h.sql(`update webhook_endpoints set failing_since = now() - interval '6 days' where id = $1`, [ep.id]);
    const c = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'streak@example.test' } });
    expect(
      (await h.request('PATCH', `/contacts/${c.body.id}`, { key: p.secretKey, body: { data: { x: 1 } } })).status,
    ).toBe(200);
    // (The owner's first mail is the sign-up verification.)
    const mail = await eventually(
      async () => sink.to(p.owner.email).find((m) => m.parsed.subject?.startsWith('Webhook endpoint disabled')),
      30_000,
      'the admin mail',
    );
    expect(mail.parsed.text).toContain(`${rx.base}/fail-forever`);
    const got = await h.request('GET', `/webhook-endpoints/${ep.id}`, { key: p.secretKey });
    expect(got.body).toMatchObject({ enabled: false, disabledReason: 'Every attempt failed for 5 days' });
    // Re-enabling clears the streak.
    const on = await h.request('PATCH', `/webhook-endpoints/${ep.id}`, { key: p.secretKey, body: { enabled: true } });
    expect(on.body).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  });
  it('every source reaches a "*" endpoint: contacts, import, segment moves, campaign status and its mail', async () => {
    const q = await createProject(h);
    const qd = await createVerifiedDomain(h, q.id, { dns });
    const ep = await create(q, '/everything', ['*']);
    const key = q.secretKey;
    const seg = await h.request('POST', '/segments', {
      key,
      body: { name: 'Pro Users', condition: one('data.plan', 'equals', 'pro'), trackMembership: true },
    });
    expect(seg.status).toBe(201);
    const a = await h.request('POST', '/contacts', { key, body: { email: 'a@rcpt.test', data: { plan: 'pro' } } });
    expect((await h.request('POST', `/segments/${seg.body.id}/compute`, { key })).body).toMatchObject({ entered: 1 });
    expect((await h.request('PATCH', `/contacts/${a.body.id}`, { key, body: { subscribed: false } })).status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob(['email,plan\na@rcpt.test,pro\nb@rcpt.test,free\n'], { type: 'text/csv' }), 'c.csv');
    expect((await h.request('POST', '/contacts/import', { key, body: form, raw: true })).status).toBe(202);
    const b = await eventually(
      async () => (await h.sql(`select id from contacts where project_id = $1 and email = 'b@rcpt.test'`, [q.id]))[0],
      30_000,
      'the import',
    );
    const camp = await h.request('POST', '/campaigns', {
      key,
      body: { name: 'News', subject: 'News', from: `news@${qd.domain}`, body: '<p>News</p>' },
    });
    expect((await h.request('POST', `/campaigns/${camp.body.data.id}/send`, { key, body: {} })).status).toBe(200);
    await eventually(
      async () => (await h.request('GET', `/campaigns/${camp.body.data.id}`, { key })).body.status === 'SENT',
      60_000,
      'the campaign',
    );
    expect((await h.request('DELETE', `/contacts/${b.id}`, { key })).status).toBe(204);

    const want = [
      'contact.created',
      'segment.pro-users.entry',
      'contact.unsubscribed',
      'contact.updated',
      'campaign.sending',
      'email.sent',
      'email.delivered',
      'campaign.sent',
      'contact.deleted',
    ];
    const types = async () => {
      await runJobsNow(h);
      return verified('/everything', ep.secret).map((g) => g.payload.type);
    };
    await eventually(
      async () =>
        want.every((t) =>
          rx
            .at('/everything')
            .map((r) => JSON.parse(r.body).type)
            .includes(t),
        ),
      30_000,
      () =>
        `all types (got ${rx
          .at('/everything')
          .map((r) => JSON.parse(r.body).type)
          .join(', ')})`,
    );
    const got = await types();
    // Import: b created, a updated (with its data), each once.
    const imported = verified('/everything', ep.secret)
      .map((g) => g.payload)
      .filter((x) => x.data.email === 'b@rcpt.test' && x.type === 'contact.created');
    expect(imported).toHaveLength(1);
    expect(got.filter((t) => t === 'campaign.sent')).toHaveLength(1);
    const sent = verified('/everything', ep.secret)
      .map((g) => g.payload)
      .find((x) => x.type === 'email.sent')!;
    expect(sent.data).toMatchObject({ campaignId: camp.body.data.id, contactId: b.id, projectId: q.id });
    const entry = verified('/everything', ep.secret)
      .map((g) => g.payload)
      .find((x) => x.type === 'segment.pro-users.entry')!;
    expect(entry.data).toMatchObject({ segmentId: seg.body.id, contactId: a.body.id });
    // Deliveries are unique per (endpoint, event): the log holds exactly what arrived.
    const rows = await h.sql(`select count(*)::int as n from webhook_deliveries where endpoint_id = $1`, [ep.id]);
    expect(rows[0].n).toBe(rx.at('/everything').length);
  });
});
