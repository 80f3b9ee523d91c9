import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

type Stamps = Partial<
  Record<
    'sent_at' | 'delivered_at' | 'opened_at' | 'clicked_at' | 'bounced_at' | 'complained_at' | 'created_at',
    string
  >
>;

async function email(
  p: TestProject,
  stamps: Stamps,
  extra: { contactId?: string; subject?: string; campaignId?: string } = {},
) {
  const id = randomUUID();
  const cols = Object.keys(stamps);
  await h.sql(
    `insert into emails (id, project_id, contact_id, to_email, from_email, subject, body, source_type, campaign_id${cols.map((c) => `, ${c}`).join('')})
    values ($1, $2, $3, 'to@example.test', 'from@example.test', $4, 'b', 'TRANSACTIONAL', $5${cols.map((_, i) => `, $${i + 6}`).join('')})`,
    [id, p.id, extra.contactId ?? null, extra.subject ?? 'Subject', extra.campaignId ?? null, ...Object.values(stamps)],
  );
  return id;
}

async function event(p: TestProject, name: string, at: string, contactId: string | null = null) {
  const id = randomUUID();
  await h.sql('insert into events (id, project_id, contact_id, name, created_at) values ($1, $2, $3, $4, $5)', [
    id,
    p.id,
    contactId,
    name,
    at,
  ]);
  return id;
}

async function contact(p: TestProject, email: string) {
  const id = randomUUID();
  await h.sql('insert into contacts (id, project_id, email) values ($1, $2, $3)', [id, p.id, email]);
  return id;
}

describe('GET /activity', () => {
  it('merges email status times and events newest first, pages by cursor, filters by type', async () => {
    const p = await createProject(h);
    const c = await contact(p, 'reader@example.test');
    const a = await email(
      p,
      {
        created_at: '2030-01-01T09:59:00Z',
        sent_at: '2030-01-01T10:00:00Z',
        delivered_at: '2030-01-01T10:01:00Z',
        opened_at: '2030-01-01T10:05:00Z',
      },
      { contactId: c, subject: 'Hello' },
    );
    const b = await email(p, {
      created_at: '2030-01-01T10:59:00Z',
      sent_at: '2030-01-01T11:00:00Z',
      bounced_at: '2030-01-01T11:00:01Z',
    });
    await email(p, { created_at: '2030-01-01T12:00:00Z' }); // pending: no activity yet
    const signup = await event(p, 'signup', '2030-01-01T10:02:00Z', c);
    const inbound = await event(p, 'email.received', '2030-01-01T12:30:00Z', c);
    await event(p, 'email.open', '2030-01-01T10:05:00Z', c); // duplicates opened_at: not an item of its own

    const res = await h.request('GET', '/activity', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(7);
    expect(res.body.hasMore).toBe(false);
    expect(res.body.data.map((i: { type: string; occurredAt: string }) => [i.type, i.occurredAt])).toEqual([
      ['email.received', '2030-01-01T12:30:00.000Z'],
      ['email.bounced', '2030-01-01T11:00:01.000Z'],
      ['email.sent', '2030-01-01T11:00:00.000Z'],
      ['email.opened', '2030-01-01T10:05:00.000Z'],
      ['event', '2030-01-01T10:02:00.000Z'],
      ['email.delivered', '2030-01-01T10:01:00.000Z'],
      ['email.sent', '2030-01-01T10:00:00.000Z'],
    ]);
    expect(res.body.data[3]).toEqual({
      id: `${a}:email.opened`,
      type: 'email.opened',
      occurredAt: '2030-01-01T10:05:00.000Z',
      contact: { id: c, email: 'to@example.test' },
      email: { id: a, subject: 'Hello', campaignId: null, templateId: null },
      event: null,
    });
    expect(res.body.data[4]).toMatchObject({
      type: 'event',
      contact: { id: c, email: 'reader@example.test' },
      email: null,
      event: { id: signup, name: 'signup' },
    });
    expect(res.body.data[0].event.id).toBe(inbound);
    expect(res.body.data[1].email.id).toBe(b);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; cursor: string | null } } = await h.request(
        'GET',
        `/activity?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        { key: p.secretKey },
      );
      seen.push(...page.body.data.map((i) => i.id));
      cursor = page.body.cursor;
    } while (cursor);
    expect(seen).toEqual(res.body.data.map((i: { id: string }) => i.id));

    const filtered = await h.request('GET', '/activity?type=email.sent,event', { key: p.secretKey });
    expect(filtered.body.data.map((i: { type: string }) => i.type)).toEqual(['email.sent', 'event', 'email.sent']);
    expect(filtered.body.total).toBe(3);
    const inboundOnly = await h.request('GET', '/activity?type=email.received', { key: p.secretKey });
    expect(inboundOnly.body.data.map((i: { id: string }) => i.id)).toEqual([`${inbound}:event`]);
    const bad = await h.request('GET', '/activity?type=email.sent,nope', { key: p.secretKey });
    expect(bad.status).toBe(422);
    expect((await h.request('GET', '/activity?cursor=xyz', { key: p.secretKey })).status).toBe(422);

    const other = await createProject(h);
    expect((await h.request('GET', '/activity', { key: other.secretKey })).body).toEqual({
      data: [],
      cursor: null,
      hasMore: false,
      total: 0,
    });
  });
});

describe('GET /activity paging over equal times', () => {
  it('visits every item exactly once when emails and events share a timestamp', async () => {
    const p = await createProject(h);
    const at = '2030-05-05T05:05:05.123456Z';
    await email(p, { created_at: at, sent_at: at, delivered_at: at });
    await email(p, { created_at: at, sent_at: at });
    await event(p, 'a', at);
    await event(p, 'b', at);
    await event(p, 'email.received', at);
    const all = (await h.request('GET', '/activity?limit=100', { key: p.secretKey })).body.data.map(
      (i: { id: string }) => i.id,
    );
    expect(all).toHaveLength(6);
    for (const limit of [1, 2, 4]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: { body: { data: { id: string }[]; cursor: string | null } } = await h.request(
          'GET',
          `/activity?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
          { key: p.secretKey },
        );
        seen.push(...res.body.data.map((i) => i.id));
        cursor = res.body.cursor;
      } while (cursor);
      expect(seen, `limit ${limit}`).toEqual(all);
    }
  });
});

describe('GET /activity/stats, /recent-count, /types', () => {
  it('counts each type in the range with rates; 422 for bad dates', async () => {
    const p = await createProject(h);
    await email(p, {
      created_at: '2030-02-01T00:00:00Z',
      sent_at: '2030-02-01T00:00:01Z',
      delivered_at: '2030-02-01T00:00:02Z',
      opened_at: '2030-02-02T00:00:00Z',
      clicked_at: '2030-02-02T00:01:00Z',
    });
    await email(p, {
      created_at: '2030-02-01T00:00:00Z',
      sent_at: '2030-02-01T00:00:01Z',
      delivered_at: '2030-02-01T00:00:02Z',
    });
    await email(p, {
      created_at: '2030-02-01T00:00:00Z',
      sent_at: '2030-02-01T00:00:01Z',
      bounced_at: '2030-02-01T00:00:02Z',
    });
    await email(p, {
      created_at: '2030-02-01T00:00:00Z',
      sent_at: '2030-02-01T00:00:01Z',
      delivered_at: '2030-02-01T00:00:02Z',
      complained_at: '2030-02-03T00:00:00Z',
    });
    await email(p, { created_at: '2030-01-01T00:00:00Z', sent_at: '2030-01-01T00:00:01Z' }); // before the range
    await event(p, 'signup', '2030-02-05T00:00:00Z');
    await event(p, 'email.received', '2030-02-05T00:00:00Z');
    await event(p, 'signup', '2030-03-05T00:00:00Z'); // after the range

    const res = await h.request('GET', '/activity/stats?from=2030-02-01&to=2030-03-01T00:00:00Z', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      from: '2030-02-01T00:00:00.000Z',
      to: '2030-03-01T00:00:00.000Z',
      sent: 4,
      delivered: 3,
      opened: 1,
      clicked: 1,
      bounced: 1,
      complained: 1,
      received: 1,
      events: 1,
      deliveryRate: 75,
      openRate: 25,
      clickRate: 25,
      bounceRate: 25,
      complaintRate: 25,
    });

    h.clock.set(new Date('2030-02-15T00:00:00Z'));
    const defaults = await h.request('GET', '/activity/stats', { key: p.secretKey });
    // The test clock keeps running from the instant it was set.
    expect(defaults.body).toMatchObject({ sent: 4, events: 1 });
    expect(defaults.body.from).toMatch(/^2030-01-16T00:00:/);
    expect(defaults.body.to).toMatch(/^2030-02-15T00:00:/);

    for (const qs of ['?from=yesterday', '?from=2030-13-45', '?to=abc', '?from=2030-03-01&to=2030-02-01']) {
      const bad = await h.request('GET', `/activity/stats${qs}`, { key: p.secretKey });
      expect(bad.status, qs).toBe(422);
      expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('counts items of the last N minutes', async () => {
    h.clock.set(new Date('2030-06-01T12:00:00Z'));
    const p = await createProject(h);
    await email(p, {
      created_at: '2030-06-01T11:00:00Z',
      sent_at: '2030-06-01T11:30:00Z',
      opened_at: '2030-06-01T11:55:00Z',
    });
    await event(p, 'signup', '2030-06-01T10:30:00Z');
    await event(p, 'signup', '2030-06-01T11:59:00Z');
    const recent = await h.request('GET', '/activity/recent-count', { key: p.secretKey });
    expect(recent.body).toMatchObject({ count: 3, minutes: 60 });
    expect(recent.body.since).toMatch(/^2030-06-01T11:00:/);
    expect((await h.request('GET', '/activity/recent-count?minutes=10', { key: p.secretKey })).body.count).toBe(2);
    expect((await h.request('GET', '/activity/recent-count?minutes=120', { key: p.secretKey })).body.count).toBe(4);
    expect((await h.request('GET', '/activity/recent-count?minutes=0', { key: p.secretKey })).status).toBe(422);
    expect((await h.request('GET', '/activity/recent-count?minutes=abc', { key: p.secretKey })).status).toBe(422);
  });

  it('lists the item types', async () => {
    const p = await createProject(h);
    const res = await h.request('GET', '/activity/types', { key: p.secretKey });
    expect(res.body).toEqual([
      'email.sent',
      'email.delivered',
      'email.opened',
      'email.clicked',
      'email.bounced',
      'email.complained',
      'email.received',
      'event',
    ]);
    expect((await h.request('GET', '/activity/types')).status).toBe(401);
  });
});

describe('GET /activity/upcoming', () => {
  it('lists future scheduled campaigns soonest first and waiting executions', async () => {
    h.clock.set(new Date('2030-07-01T00:00:00Z'));
    const p = await createProject(h);
    const soon = randomUUID();
    const later = randomUUID();
    await h.sql(
      `insert into campaigns (id, project_id, name, subject, body, "from", status, scheduled_for) values
      ($1, $3, 'Later', 's', 'b', 'a@x.test', 'SCHEDULED', '2030-07-03T00:00:00Z'),
      ($2, $3, 'Soon', 's', 'b', 'a@x.test', 'SCHEDULED', '2030-07-02T00:00:00Z'),
      ($4, $3, 'Past', 's', 'b', 'a@x.test', 'SCHEDULED', '2030-06-30T00:00:00Z'),
      ($5, $3, 'Draft', 's', 'b', 'a@x.test', 'DRAFT', '2030-07-05T00:00:00Z')`,
      [later, soon, p.id, randomUUID(), randomUUID()],
    );
    const wf = randomUUID();
    const step = randomUUID();
    const c1 = await contact(p, 'w1@example.test');
    const c2 = await contact(p, 'w2@example.test');
    await h.sql(`insert into workflows (id, project_id, name) values ($1, $2, 'Drip')`, [wf, p.id]);
    await h.sql(
      `insert into workflow_steps (id, workflow_id, project_id, type, name, config) values ($1, $2, $3, 'DELAY', 'Wait a day', '{"amount":1,"unit":"days"}')`,
      [step, wf, p.id],
    );
    const waiting = randomUUID();
    await h.sql(
      `insert into workflow_executions (id, workflow_id, project_id, contact_id, status, current_step_id, updated_at) values
      ($1, $2, $3, $4, 'WAITING', $5, '2030-06-30T12:00:00Z'), ($6, $2, $3, $7, 'RUNNING', $5, '2030-06-30T12:00:00Z')`,
      [waiting, wf, p.id, c1, step, randomUUID(), c2],
    );

    const res = await h.request('GET', '/activity/upcoming', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.campaigns.map((c: { name: string }) => c.name)).toEqual(['Soon', 'Later']);
    expect(res.body.campaigns[0]).toEqual({
      id: soon,
      name: 'Soon',
      subject: 's',
      audienceType: 'ALL',
      scheduledFor: '2030-07-02T00:00:00.000Z',
    });
    expect(res.body.workflows).toEqual([
      {
        executionId: waiting,
        workflowId: wf,
        workflowName: 'Drip',
        contactId: c1,
        contactEmail: 'w1@example.test',
        stepId: step,
        stepName: 'Wait a day',
        stepType: 'DELAY',
        waitingSince: '2030-06-30T12:00:00.000Z',
      },
    ]);
    expect((await h.request('GET', '/activity/upcoming?limit=1', { key: p.secretKey })).body.campaigns).toHaveLength(1);
    const other = await createProject(h);
    expect((await h.request('GET', '/activity/upcoming', { key: other.secretKey })).body).toEqual({
      campaigns: [],
      workflows: [],
    });
  });
});
