import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { eventually } from '../../../test/sending-fixtures.js';
import { startReceiver } from '../../../test/webhook-receiver.js';
import { WebhookDispatcher } from './dispatcher.js';

// The worker's webhook dispatcher end to end: real events, a receiver on 127.0.0.1 that answers
// after a delay, and what arrived in which order.
describe('webhook dispatcher', () => {
  let h: Harness;
  let rx: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    rx = await startReceiver();
    h = await createHarness({ worker: true, env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  });
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  const endpoint = async (p: TestProject, path: string, events: string[], concurrency?: number) => {
    const res = await h.request('POST', '/webhook-endpoints', {
      key: p.secretKey,
      body: { url: `${rx.base}${path}`, events, ...(concurrency ? { concurrency } : {}) },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.concurrency).toBe(concurrency ?? 8);
    return res.body as { id: string; secret: string };
  };
  const contact = async (p: TestProject, email: string) => {
    const res = await h.request('POST', '/contacts', { key: p.secretKey, body: { email } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const track = async (p: TestProject, email: string, event: string, data: Record<string, unknown> = {}) => {
    const res = await h.request('POST', '/v1/track', { key: p.publicKey, body: { email, event, data } });
    expect(res.status, res.text).toBe(200);
  };
  const payloads = (path: string) =>
    rx.at(path).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });

  it("delivers one contact's updates in order, one at a time, while other contacts' run beside them", async () => {
    const p = await createProject(h);
    const path = '/slow-600/order';
    await endpoint(p, path, ['contact.updated']);
    const a = await contact(p, 'a@order.test');
    const others = [];
    for (let i = 1; i <= 6; i++) others.push(await contact(p, `b${i}@order.test`));
    for (let n = 1; n <= 5; n++) {
      const res = await h.request('PATCH', `/contacts/${a}`, { key: p.secretKey, body: { data: { n } } });
      expect(res.status).toBe(200);
      if (others[n]) await h.request('PATCH', `/contacts/${others[n]}`, { key: p.secretKey, body: { data: { n } } });
    }
    await h.request('PATCH', `/contacts/${others[0]}`, { key: p.secretKey, body: { data: { n: 0 } } });
    await eventually(async () => rx.at(path).filter((r) => r.answeredAt).length === 11, 30_000, '11 answered');

    const ofA = rx.at(path).filter((r) => JSON.parse(r.body).data.contactId === a);
    expect(ofA.map((r) => JSON.parse(r.body).data.data.n)).toEqual([1, 2, 3, 4, 5]);
    // Each of A's deliveries started only after the previous one was answered.
    for (let i = 1; i < ofA.length; i++) expect(ofA[i].at).toBeGreaterThanOrEqual(ofA[i - 1].answeredAt!);
    // …while the other contacts' went in parallel with them.
    expect(rx.maxInFlight(path)).toBeGreaterThan(1);
    expect(rx.maxInFlight(path)).toBeLessThanOrEqual(8);
  });

  it("never has more of an endpoint's deliveries in flight than its concurrency", async () => {
    const p = await createProject(h);
    const path = '/slow-1000/cap';
    const ep = await endpoint(p, path, ['capped'], 3);
    await Promise.all(Array.from({ length: 12 }, (_, i) => track(p, `cap${i}@cap.test`, 'capped', { i })));
    await eventually(async () => rx.at(path).filter((r) => r.answeredAt).length === 12, 30_000, '12 answered');
    expect(rx.maxInFlight(path)).toBe(3);
    // The setting can be changed like any other.
    const res = await h.request('PATCH', `/webhook-endpoints/${ep.id}`, { key: p.secretKey, body: { concurrency: 1 } });
    expect(res.body.concurrency).toBe(1);
    for (const bad of [0, 65, 2.5, '4']) {
      const r = await h.request('PATCH', `/webhook-endpoints/${ep.id}`, {
        key: p.secretKey,
        body: { concurrency: bad },
      });
      expect(r.status).toBe(422);
    }
    const [row] = await h.sql(`select concurrency from webhook_endpoints where id = $1`, [ep.id]);
    expect(row.concurrency).toBe(1);
  });

  it("a slow endpoint does not hold back another endpoint's deliveries", async () => {
    const p = await createProject(h);
    const slow = '/hold/slow';
    const fast = '/fast';
    await endpoint(p, slow, ['ping'], 1);
    await endpoint(p, fast, ['ping'], 1);
    for (let i = 0; i < 10; i++) await track(p, `s${i}@slow.test`, 'ping', { i });
    await eventually(async () => rx.at(fast).length === 10, 15_000, 'the fast endpoint to receive all 10');
    // The slow receiver still holds its first delivery (concurrency 1: it got no second).
    expect(rx.at(slow)).toHaveLength(1);
    expect(rx.at(slow)[0].answeredAt).toBeUndefined();
    expect(payloads(fast).map((x) => x.data.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    rx.release();
    await eventually(async () => rx.at(slow).length === 10, 15_000, 'the slow endpoint to catch up');
  });

  it('two dispatchers share the endpoints: each delivery is attempted once, by the holder of the lease', async () => {
    const p = await createProject(h);
    const path = '/slow-50/shared';
    const ep = await endpoint(p, path, ['shared'], 4);
    const second = new WebhookDispatcher(h.workerDeps!);
    await second.start();
    try {
      for (let i = 0; i < 20; i++) await track(p, `sh${i}@shared.test`, 'shared', { i });
      const rows = await eventually(
        async () => {
          const [r] = await h.sql(
            `select count(*) filter (where status = 'SUCCEEDED')::int as ok, max(attempts)::int as most
            from webhook_deliveries where endpoint_id = $1`,
            [ep.id],
          );
          return r.ok === 20 ? r : null;
        },
        15_000,
        '20 deliveries recorded',
      );
      expect(rows).toEqual({ ok: 20, most: 1 });
      const ids = rx.at(path).map((r) => r.headers['webhook-id']);
      expect(new Set(ids).size).toBe(20);
      expect(ids).toHaveLength(20);
      const [lease] = await h.sql(`select lease_owner from webhook_endpoints where id = $1`, [ep.id]);
      expect([second.owner, h.worker!.webhooks.owner]).toContain(lease.lease_owner);
    } finally {
      await second.stop();
    }
  });

  it('ends the queued deliveries of a disabled endpoint as failed, unsent', async () => {
    const p = await createProject(h);
    const path = '/disabled-later';
    const ep = await endpoint(p, path, ['*']);
    await h.request('PATCH', `/webhook-endpoints/${ep.id}`, { key: p.secretKey, body: { enabled: false } });
    // As if queued just before the endpoint was disabled (the insert wakes the dispatcher).
    await h.sql(
      `insert into webhook_deliveries (id, project_id, endpoint_id, event_id, event_type, payload, next_attempt_at)
      select gen_random_uuid(), $1, $2, gen_random_uuid(), 'contact.created', '{"type":"contact.created","timestamp":"2026-01-01T00:00:00.000Z","data":{}}', now()
      from generate_series(1, 3)`,
      [p.id, ep.id],
    );
    const rows = await eventually(
      async () => {
        const r = await h.sql(`select status, error, attempts from webhook_deliveries where endpoint_id = $1`, [ep.id]);
        return r.every((x) => x.status === 'FAILED') ? r : null;
      },
      15_000,
      'the deliveries to fail',
    );
    expect(rows).toEqual(Array(3).fill({ status: 'FAILED', error: 'Endpoint disabled', attempts: 0 }));
    expect(rx.at(path)).toEqual([]);
  });
});
