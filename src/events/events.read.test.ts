import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { recordEvent } from './emit.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

async function contact(p: TestProject, email = `c-${randomUUID().slice(0, 8)}@example.test`) {
  const id = randomUUID();
  await h.sql('insert into contacts (id, project_id, email) values ($1, $2, $3)', [id, p.id, email]);
  return { id, email };
}

async function event(p: TestProject, name: string, at: string, contactId: string | null = null, data: object = {}) {
  const id = randomUUID();
  await h.sql(
    'insert into events (id, project_id, contact_id, name, data, created_at) values ($1, $2, $3, $4, $5, $6)',
    [id, p.id, contactId, name, JSON.stringify(data), at],
  );
  return id;
}

describe('GET /events', () => {
  it('lists newest first with contact email, filters by name and contactId, pages by cursor', async () => {
    const p = await createProject(h);
    const a = await contact(p, 'a@example.test');
    const b = await contact(p, 'b@example.test');
    // Three events in the same millisecond, told apart only by microseconds.
    const e1 = await event(p, 'signup', '2030-01-01T10:00:00.000001Z', a.id, { plan: 'pro' });
    const e2 = await event(p, 'signup', '2030-01-01T10:00:00.000002Z', b.id);
    const e3 = await event(p, 'purchase', '2030-01-01T10:00:00.000003Z', a.id);
    const e4 = await event(p, 'purchase', '2030-01-02T10:00:00Z', null);

    const all = await h.request('GET', '/events', { key: p.secretKey });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ hasMore: false, cursor: null, total: 4 });
    expect(all.body.data.map((e: { id: string }) => e.id)).toEqual([e4, e3, e2, e1]);
    expect(all.body.data[3]).toEqual({
      id: e1,
      name: 'signup',
      contactId: a.id,
      contact: { id: a.id, email: 'a@example.test' },
      data: { plan: 'pro' },
      emailId: null,
      campaignId: null,
      createdAt: '2030-01-01T10:00:00.000Z',
    });
    expect(all.body.data[0].contact).toBeNull();

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const qs: string = cursor ? `?limit=1&cursor=${cursor}` : '?limit=1';
      const res = await h.request('GET', `/events${qs}`, { key: p.secretKey });
      expect(res.body.total).toBe(pages === 0 ? 4 : 0);
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      cursor = res.body.cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual([e4, e3, e2, e1]);
    expect(pages).toBe(4);

    const signups = await h.request('GET', '/events?name=signup', { key: p.secretKey });
    expect(signups.body.data.map((e: { id: string }) => e.id)).toEqual([e2, e1]);
    expect(signups.body.total).toBe(2);
    const ofA = await h.request('GET', `/events?contactId=${a.id}`, { key: p.secretKey });
    expect(ofA.body.data.map((e: { id: string }) => e.id)).toEqual([e3, e1]);
    expect((await h.request('GET', '/events?limit=500', { key: p.secretKey })).status).toBe(200);
  });

  it('422 for a bad cursor, limit or contactId; another project sees nothing', async () => {
    const p = await createProject(h);
    await event(p, 'x', '2030-01-01T00:00:00Z');
    for (const qs of ['?cursor=garbage', '?limit=0', '?limit=abc', '?contactId=nope']) {
      const res = await h.request('GET', `/events${qs}`, { key: p.secretKey });
      expect(res.status, qs).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    const other = await createProject(h);
    expect((await h.request('GET', '/events', { key: other.secretKey })).body).toEqual({
      data: [],
      cursor: null,
      hasMore: false,
      total: 0,
    });
  });
});

describe('GET /events/contact/:contactId', () => {
  it("lists one contact's events, including those recorded through recordEvent; 404 for others", async () => {
    const p = await createProject(h);
    const a = await contact(p);
    const b = await contact(p);
    await event(p, 'one', '2030-01-01T00:00:00Z', a.id);
    await event(p, 'other', '2030-01-01T00:00:00Z', b.id);
    const { id } = await recordEvent(h.deps.db, {
      projectId: p.id,
      contactId: a.id,
      name: 'two',
      data: { k: 1 },
      createdAt: new Date('2030-01-03T00:00:00Z'),
    });
    const res = await h.request('GET', `/events/contact/${a.id}`, { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { name: string }) => e.name)).toEqual(['two', 'one']);
    expect(res.body.data[0]).toMatchObject({ id, data: { k: 1 }, contact: { id: a.id, email: a.email } });
    expect(res.body.total).toBe(2);
    const first = await h.request('GET', `/events/contact/${a.id}?limit=1`, { key: p.secretKey });
    expect(first.body).toMatchObject({ hasMore: true, total: 2 });
    const second = await h.request('GET', `/events/contact/${a.id}?limit=1&cursor=${first.body.cursor}`, {
      key: p.secretKey,
    });
    expect(second.body).toMatchObject({ hasMore: false, cursor: null, total: 0 });
    expect(second.body.data.map((e: { name: string }) => e.name)).toEqual(['one']);
    expect((await h.request('GET', `/events/contact/${a.id}?name=one`, { key: p.secretKey })).body).toMatchObject({
      total: 1,
    });

    const other = await createProject(h);
    expect((await h.request('GET', `/events/contact/${a.id}`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('GET', '/events/contact/not-a-uuid', { key: p.secretKey })).status).toBe(404);
    expect((await h.request('GET', `/events/contact/${randomUUID()}`, { key: p.secretKey })).status).toBe(404);
  });
});

describe('GET /events/names and /events/stats', () => {
  it('counts per name, last 30 days, last seen and a zero-filled daily series', async () => {
    h.clock.set(new Date('2030-03-31T12:00:00Z'));
    const p = await createProject(h);
    const a = await contact(p);
    const b = await contact(p);
    await event(p, 'signup', '2030-03-31T01:00:00Z', a.id);
    await event(p, 'signup', '2030-03-30T23:59:59Z', b.id);
    await event(p, 'signup', '2030-01-01T00:00:00Z', a.id);
    await event(p, 'email.open', '2030-03-02T00:00:00Z', a.id);
    await event(p, 'contact.subscribed', '2030-03-01T11:59:59Z', a.id); // 30 days and 1 second ago: outside

    const names = await h.request('GET', '/events/names', { key: p.secretKey });
    expect(names.status).toBe(200);
    expect(names.body).toEqual([
      { name: 'signup', count: 3, last30Days: 2, contacts: 2, lastSeen: '2030-03-31T01:00:00.000Z', reserved: false },
      {
        name: 'contact.subscribed',
        count: 1,
        last30Days: 0,
        contacts: 1,
        lastSeen: '2030-03-01T11:59:59.000Z',
        reserved: true,
      },
      {
        name: 'email.open',
        count: 1,
        last30Days: 1,
        contacts: 1,
        lastSeen: '2030-03-02T00:00:00.000Z',
        reserved: true,
      },
    ]);

    const stats = await h.request('GET', '/events/stats', { key: p.secretKey });
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ total: 5, last30Days: 3, uniqueNames: 3 });
    expect(stats.body.byName[0]).toEqual({ name: 'signup', count: 3, last30Days: 2 });
    expect(stats.body.daily).toHaveLength(30);
    expect(stats.body.daily[0]).toEqual({ date: '2030-03-02', count: 1 });
    expect(stats.body.daily.at(-2)).toEqual({ date: '2030-03-30', count: 1 });
    expect(stats.body.daily.at(-1)).toEqual({ date: '2030-03-31', count: 1 });
    expect(stats.body.daily.reduce((n: number, d: { count: number }) => n + d.count, 0)).toBe(3);

    const other = await createProject(h);
    expect((await h.request('GET', '/events/names', { key: other.secretKey })).body).toEqual([]);
  });
});

describe('GET /events/:eventName/usage', () => {
  it('finds workflow triggers, WAIT_FOR_EVENT and CONDITION steps, segments and campaign audiences', async () => {
    const p = await createProject(h);
    const trig = randomUUID();
    const waiter = randomUUID();
    const waitStep = randomUUID();
    const condStep = randomUUID();
    await h.sql(
      `insert into workflows (id, project_id, name, enabled, trigger_config) values
      ($1, $3, 'On purchase', true, '{"eventName":"purchase"}'), ($2, $3, 'Onboarding', false, '{"eventName":"signup"}')`,
      [trig, waiter, p.id],
    );
    await h.sql(
      `insert into workflow_steps (id, workflow_id, project_id, type, name, config) values
      ($1, $3, $4, 'WAIT_FOR_EVENT', 'Wait for purchase', '{"eventName":"purchase","timeout":3600}'),
      ($2, $3, $4, 'CONDITION', 'Bought?', '{"field":"event.purchase","operator":"triggered","value":true}'),
      ($5, $3, $4, 'WAIT_FOR_EVENT', 'Wait for other', '{"eventName":"refund"}')`,
      [waitStep, condStep, waiter, p.id, randomUUID()],
    );
    const seg = randomUUID();
    const nested = {
      logic: 'AND',
      groups: [
        {
          filters: [{ field: 'email', operator: 'contains', value: '@' }],
          conditions: {
            logic: 'OR',
            groups: [{ filters: [{ field: 'event.purchase', operator: 'triggeredWithin', value: 7, unit: 'days' }] }],
          },
        },
      ],
    };
    await h.sql(
      `insert into segments (id, project_id, name, condition) values ($1, $2, 'Buyers', $3), ($4, $2, 'Unrelated', $5)`,
      [
        seg,
        p.id,
        JSON.stringify(nested),
        randomUUID(),
        JSON.stringify({ logic: 'AND', groups: [{ filters: [{ field: 'event.purchased', operator: 'triggered' }] }] }),
      ],
    );
    const camp = randomUUID();
    await h.sql(
      `insert into campaigns (id, project_id, name, subject, body, "from", audience_type, audience_condition)
      values ($1, $2, 'Promo', 's', 'b', 'a@x.test', 'FILTERED', $3)`,
      [
        camp,
        p.id,
        JSON.stringify({
          logic: 'AND',
          groups: [{ filters: [{ field: 'event.purchase', operator: 'notTriggered' }] }],
        }),
      ],
    );

    const res = await h.request('GET', '/events/purchase/usage', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.eventName).toBe('purchase');
    expect(res.body.workflows).toEqual(
      expect.arrayContaining([
        { id: trig, name: 'On purchase', enabled: true, usedAs: 'trigger', stepId: null, stepName: null },
        {
          id: waiter,
          name: 'Onboarding',
          enabled: false,
          usedAs: 'WAIT_FOR_EVENT',
          stepId: waitStep,
          stepName: 'Wait for purchase',
        },
        { id: waiter, name: 'Onboarding', enabled: false, usedAs: 'CONDITION', stepId: condStep, stepName: 'Bought?' },
      ]),
    );
    expect(res.body.workflows).toHaveLength(3);
    expect(res.body.segments).toEqual([{ id: seg, name: 'Buyers', type: 'DYNAMIC' }]);
    expect(res.body.campaigns).toEqual([{ id: camp, name: 'Promo', status: 'DRAFT' }]);

    const none = await h.request('GET', '/events/nothing/usage', { key: p.secretKey });
    expect(none.body).toEqual({ eventName: 'nothing', workflows: [], segments: [], campaigns: [] });
    const other = await createProject(h);
    expect((await h.request('GET', '/events/purchase/usage', { key: other.secretKey })).body.workflows).toEqual([]);
  });
});

describe('DELETE /events/:eventName', () => {
  it('deletes every event with that name in the project only, 204; then 404', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    await event(p, 'page view', '2030-01-01T00:00:00Z');
    await event(p, 'page view', '2030-01-02T00:00:00Z');
    await event(p, 'keep', '2030-01-02T00:00:00Z');
    await event(other, 'page view', '2030-01-02T00:00:00Z');
    const res = await h.request('DELETE', `/events/${encodeURIComponent('page view')}`, { key: p.secretKey });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await h.sql('select name from events where project_id = $1', [p.id])).toEqual([{ name: 'keep' }]);
    expect(await h.sql('select 1 from events where project_id = $1', [other.id])).toHaveLength(1);
    expect((await h.request('DELETE', `/events/${encodeURIComponent('page view')}`, { key: p.secretKey })).status).toBe(
      404,
    );
  });
});
