import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { queueWebhookDeliveries } from './fanout.js';

// Delivery ids decide the order the dispatcher sends in (dispatch/pump.ts): they must sort as the
// events do, also for events made in the same millisecond with the same time (email.sent and
// email.delivery of one send are such a pair).
describe('webhook fan-out', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  });
  afterAll(async () => h?.close());

  it('gives deliveries ids in event order, down to events of one instant, and distinct ids per endpoint', async () => {
    const p = await createProject(h);
    for (const path of ['/a', '/b']) {
      const res = await h.request('POST', '/webhook-endpoints', {
        key: p.secretKey,
        body: { url: `http://127.0.0.1:9${path}`, events: ['contact.updated'] },
      });
      expect(res.status, res.text).toBe(201);
    }
    const at = new Date();
    const events = Array.from({ length: 60 }, (_, n) => ({
      type: 'contact.updated',
      data: { n },
      at,
    }));
    await h.deps.db.transaction((tx) => queueWebhookDeliveries(tx, p.id, events));

    const rows = await h.deps.db.execute<{ endpoint_id: string; id: string; n: number }>(
      sql`select endpoint_id, id, (payload->'data'->>'n')::int as n from webhook_deliveries
        where project_id = ${p.id} order by endpoint_id, id`,
    );
    expect(rows.rows).toHaveLength(120);
    const endpoints = [...new Set(rows.rows.map((r) => r.endpoint_id))];
    expect(endpoints).toHaveLength(2);
    for (const id of endpoints)
      expect(rows.rows.filter((r) => r.endpoint_id === id).map((r) => r.n)).toEqual(events.map((e) => e.data.n));
    expect(new Set(rows.rows.map((r) => r.id)).size).toBe(120);
  });
});
