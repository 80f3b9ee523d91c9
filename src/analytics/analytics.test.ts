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
    | 'sent_at'
    | 'delivered_at'
    | 'opened_at'
    | 'clicked_at'
    | 'bounced_at'
    | 'complained_at'
    | 'created_at'
    | 'human_opened_at'
    | 'human_clicked_at',
    string
  >
>;

async function email(
  p: TestProject,
  stamps: Stamps,
  campaignId: string | null = null,
  contactId: string | null = null,
) {
  const id = randomUUID();
  const cols = Object.keys(stamps);
  await h.sql(
    `insert into emails (id, project_id, to_email, from_email, subject, body, source_type, campaign_id, contact_id${cols.map((c) => `, ${c}`).join('')})
    values ($1, $2, 'to@example.test', 'from@example.test', 's', 'b', $3, $4, $5${cols.map((_, i) => `, $${i + 6}`).join('')})`,
    [id, p.id, campaignId ? 'CAMPAIGN' : 'TRANSACTIONAL', campaignId, contactId, ...Object.values(stamps)],
  );
  return id;
}

async function campaign(p: TestProject, name: string, status = 'SENT') {
  const id = randomUUID();
  await h.sql(
    `insert into campaigns (id, project_id, name, subject, body, "from", status, sent_at) values ($1, $2, $3, 'Subj', 'b', 'a@x.test', $4, $5)`,
    [id, p.id, name, status, status === 'SENT' ? '2030-01-10T00:00:00Z' : null],
  );
  return id;
}

describe('GET /analytics/timeseries', () => {
  it('counts each status timestamp in its UTC day bucket, zero-filled', async () => {
    const p = await createProject(h);
    await email(p, {
      created_at: '2030-01-01T23:00:00Z',
      sent_at: '2030-01-01T23:30:00Z',
      delivered_at: '2030-01-02T00:10:00Z',
      opened_at: '2030-01-03T08:00:00Z',
      clicked_at: '2030-01-03T08:01:00Z',
      human_opened_at: '2030-01-03T08:00:00Z', // a person opened it; the click was a scanner's
    });
    await email(p, {
      created_at: '2030-01-02T10:00:00Z',
      sent_at: '2030-01-02T10:00:01Z',
      bounced_at: '2030-01-02T10:00:02Z',
    });
    await email(p, {
      created_at: '2030-01-02T10:00:00Z',
      sent_at: '2030-01-02T10:00:01Z',
      delivered_at: '2030-01-02T10:00:05Z',
      complained_at: '2030-01-05T00:00:00Z',
    });
    await email(p, { created_at: '2029-12-31T00:00:00Z', sent_at: '2029-12-31T23:59:59Z' }); // before the range
    await email(p, { created_at: '2030-01-04T00:00:00Z' }); // never sent

    const res = await h.request('GET', '/analytics/timeseries?from=2030-01-01&to=2030-01-05', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      from: '2030-01-01T00:00:00.000Z',
      to: '2030-01-05T00:00:00.000Z',
      interval: 'day',
    });
    const z = {
      sent: 0,
      delivered: 0,
      opened: 0,
      clicked: 0,
      bounced: 0,
      complained: 0,
      humanOpened: 0,
      humanClicked: 0,
    };
    expect(res.body.data).toEqual([
      { date: '2030-01-01T00:00:00.000Z', ...z, sent: 1 },
      { date: '2030-01-02T00:00:00.000Z', ...z, sent: 2, delivered: 2, bounced: 1 },
      { date: '2030-01-03T00:00:00.000Z', ...z, opened: 1, clicked: 1, humanOpened: 1 },
      { date: '2030-01-04T00:00:00.000Z', ...z },
    ]);

    const hourly = await h.request(
      'GET',
      '/analytics/timeseries?from=2030-01-02T09:00:00Z&to=2030-01-02T11:30:00Z&interval=hour',
      { key: p.secretKey },
    );
    expect(
      hourly.body.data.map((b: { date: string; sent: number; delivered: number }) => [b.date, b.sent, b.delivered]),
    ).toEqual([
      ['2030-01-02T09:00:00.000Z', 0, 0],
      ['2030-01-02T10:00:00.000Z', 2, 1],
      ['2030-01-02T11:00:00.000Z', 0, 0],
    ]);

    const other = await createProject(h);
    const empty = await h.request('GET', '/analytics/timeseries?from=2030-01-01&to=2030-01-05', {
      key: other.secretKey,
    });
    expect(empty.body.data.every((b: typeof z) => b.sent === 0 && b.delivered === 0)).toBe(true);
  });

  it('defaults to the last 30 days by day; 422 for bad dates, interval or too many buckets', async () => {
    const p = await createProject(h);
    const res = await h.request('GET', '/analytics/timeseries', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.interval).toBe('day');
    expect(Date.parse(res.body.to) - Date.parse(res.body.from)).toBe(30 * 86_400_000);
    expect(res.body.data.length).toBeGreaterThanOrEqual(30);
    expect(res.body.data.length).toBeLessThanOrEqual(31);
    for (const qs of [
      '?from=not-a-date',
      '?to=31/01/2030',
      '?from=2030-02-30T25:00:00Z',
      '?interval=week',
      '?from=2030-02-01&to=2030-01-01',
      '?from=2020-01-01&to=2030-01-01&interval=hour',
    ]) {
      const bad = await h.request('GET', `/analytics/timeseries${qs}`, { key: p.secretKey });
      expect(bad.status, qs).toBe(422);
      expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('GET /analytics/top-campaigns and /analytics/campaign-stats', () => {
  it('ranks campaigns by opens or clicks and totals their emails', async () => {
    const p = await createProject(h);
    const a = await campaign(p, 'A');
    const b = await campaign(p, 'B');
    await campaign(p, 'Draft', 'DRAFT');
    const sent = { created_at: '2030-01-10T00:00:00Z', sent_at: '2030-01-10T00:00:01Z' };
    // A: 4 sent, 3 opened (1 by a person), 1 clicked (by a person). B: 2 sent, 1 opened (by a person),
    // 2 clicked (by machines), 1 bounced.
    await email(
      p,
      {
        ...sent,
        delivered_at: '2030-01-10T00:01:00Z',
        opened_at: '2030-01-11T00:00:00Z',
        clicked_at: '2030-01-11T00:00:01Z',
        human_opened_at: '2030-01-11T00:00:00Z',
        human_clicked_at: '2030-01-11T00:00:01Z',
      },
      a,
    );
    await email(p, { ...sent, delivered_at: '2030-01-10T00:01:00Z', opened_at: '2030-01-11T00:00:00Z' }, a);
    await email(p, { ...sent, opened_at: '2030-01-11T00:00:00Z' }, a);
    await email(p, { ...sent, complained_at: '2030-01-12T00:00:00Z' }, a);
    await email(
      p,
      {
        ...sent,
        opened_at: '2030-01-11T00:00:00Z',
        clicked_at: '2030-01-11T00:00:01Z',
        human_opened_at: '2030-01-11T00:10:00Z',
      },
      b,
    );
    await email(p, { ...sent, clicked_at: '2030-01-11T00:00:01Z', bounced_at: '2030-01-10T00:00:02Z' }, b);
    await email(p, sent); // transactional: not a campaign email
    await email(
      p,
      { created_at: '2029-01-01T00:00:00Z', sent_at: '2029-01-01T00:00:01Z', opened_at: '2029-01-01T00:00:02Z' },
      b,
    ); // out of range

    const range = 'from=2030-01-01&to=2030-02-01';
    const byOpens = await h.request('GET', `/analytics/top-campaigns?${range}`, { key: p.secretKey });
    expect(byOpens.status).toBe(200);
    expect(byOpens.body.data).toEqual([
      {
        id: a,
        name: 'A',
        subject: 'Subj',
        status: 'SENT',
        sentAt: '2030-01-10T00:00:00.000Z',
        sent: 4,
        delivered: 2,
        opened: 3,
        clicked: 1,
        bounced: 0,
        humanOpened: 1,
        humanClicked: 1,
        openRate: 75,
        clickRate: 25,
        humanOpenRate: 25,
        humanClickRate: 25,
      },
      {
        id: b,
        name: 'B',
        subject: 'Subj',
        status: 'SENT',
        sentAt: '2030-01-10T00:00:00.000Z',
        sent: 2,
        delivered: 0,
        opened: 1,
        clicked: 2,
        bounced: 1,
        humanOpened: 1,
        humanClicked: 0,
        openRate: 50,
        clickRate: 100,
        humanOpenRate: 50,
        humanClickRate: 0,
      },
    ]);
    const byClicks = await h.request('GET', `/analytics/top-campaigns?${range}&sort=clicks&limit=1`, {
      key: p.secretKey,
    });
    expect(byClicks.body.data.map((c: { name: string }) => c.name)).toEqual(['B']);
    expect((await h.request('GET', `/analytics/top-campaigns?sort=likes`, { key: p.secretKey })).status).toBe(422);

    const stats = await h.request('GET', `/analytics/campaign-stats?${range}`, { key: p.secretKey });
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({
      from: '2030-01-01T00:00:00.000Z',
      to: '2030-02-01T00:00:00.000Z',
      campaigns: 2,
      recipients: 6,
      sent: 6,
      delivered: 2,
      opened: 4,
      clicked: 3,
      bounced: 1,
      complained: 1,
      humanOpened: 2,
      humanClicked: 1,
      deliveryRate: 33.33,
      openRate: 66.67,
      clickRate: 50,
      humanOpenRate: 33.33,
      humanClickRate: 16.67,
      bounceRate: 16.67,
      complaintRate: 16.67,
      byStatus: { DRAFT: 1, SCHEDULED: 0, SENDING: 0, SENT: 2, CANCELLED: 0 },
    });
    expect((await h.request('GET', '/analytics/campaign-stats?to=garbage', { key: p.secretKey })).status).toBe(422);

    const other = await createProject(h);
    expect((await h.request('GET', `/analytics/top-campaigns?${range}`, { key: other.secretKey })).body.data).toEqual(
      [],
    );
    expect((await h.request('GET', `/analytics/campaign-stats?${range}`, { key: other.secretKey })).body).toMatchObject(
      { campaigns: 0, sent: 0, openRate: 0, byStatus: { DRAFT: 0, SENT: 0 } },
    );
  });
});

describe('GET /analytics/top-events', () => {
  it('ranks event names by count in the range, leaving out system events unless asked', async () => {
    const p = await createProject(h);
    const c1 = randomUUID();
    const c2 = randomUUID();
    await h.sql(
      `insert into contacts (id, project_id, email) values ($1, $3, 'e1@example.test'), ($2, $3, 'e2@example.test')`,
      [c1, c2, p.id],
    );
    const ev = (name: string, at: string, contactId: string | null = c1) =>
      h.sql('insert into events (id, project_id, contact_id, name, created_at) values ($1, $2, $3, $4, $5)', [
        randomUUID(),
        p.id,
        contactId,
        name,
        at,
      ]);
    await ev('purchase', '2030-01-02T00:00:00Z');
    await ev('purchase', '2030-01-03T00:00:00Z', c2);
    await ev('purchase', '2030-01-04T00:00:00Z', c2);
    await ev('signup', '2030-01-02T00:00:00Z');
    await ev('signup', '2029-12-01T00:00:00Z'); // out of range
    await ev('email.open', '2030-01-02T00:00:00Z');
    await ev('email.open', '2030-01-02T00:00:00Z');
    await ev('email.open', '2030-01-02T00:00:00Z');
    await ev('email.open', '2030-01-02T00:00:00Z');
    await ev('segment.vip.entry', '2030-01-02T00:00:00Z');

    const res = await h.request('GET', '/analytics/top-events?from=2030-01-01&to=2030-02-01', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { name: 'purchase', count: 3, contacts: 2, lastSeen: '2030-01-04T00:00:00.000Z' },
      { name: 'signup', count: 1, contacts: 1, lastSeen: '2030-01-02T00:00:00.000Z' },
    ]);
    const all = await h.request(
      'GET',
      '/analytics/top-events?from=2030-01-01&to=2030-02-01&includeSystem=true&limit=2',
      { key: p.secretKey },
    );
    expect(all.body.data.map((e: { name: string; count: number }) => [e.name, e.count])).toEqual([
      ['email.open', 4],
      ['purchase', 3],
    ]);
    expect((await h.request('GET', '/analytics/top-events?from=2030-01-32', { key: p.secretKey })).status).toBe(422);
    expect((await h.request('GET', '/analytics/top-events?includeSystem=maybe', { key: p.secretKey })).status).toBe(
      422,
    );
  });
});
