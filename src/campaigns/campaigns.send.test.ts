import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { JOBS, jobsDueNow } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually, rawHeader, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';

// Sending campaigns end to end over a real SMTP server (audiences, schedules, cancels, tests).
describe('campaign sending', () => {
  let h: Harness;
  let sink: SmtpSink;

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url + '?pool=4' }, worker: true });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  /** A project with a verified domain and `n` contacts `<tag>-<i>@…` inserted in one statement. */
  async function setup(n: number, tag: string): Promise<{ p: TestProject; d: TestDomain }> {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed, data)
       select gen_random_uuid(), $1, $2 || '-' || i || '@rcpt.test', true,
              case when i % 2 = 0 then jsonb_build_object('firstName', 'Name' || i, 'plan', case when i % 4 = 0 then 'pro' else 'free' end)
                   else '{}'::jsonb end
       from generate_series(1, $3::int) i`,
      [p.id, tag, n],
    );
    return { p, d };
  }

  const create = (p: TestProject, d: TestDomain, extra: Record<string, unknown> = {}) =>
    h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: {
        name: 'Spring news',
        subject: "Hello {{firstName ?? 'there'}}",
        from: `news@${d.domain}`,
        fromName: 'News',
        body: "<html><body><p>Hi {{firstName ?? 'there'}}, plan {{plan ?? 'none'}}.</p><a href=\"https://example.com/x\">x</a></body></html>",
        ...extra,
      },
    });

  const campaign = async (p: TestProject, id: string) =>
    (await h.request('GET', `/campaigns/${id}`, { key: p.secretKey })).body;
  const waitStatus = (p: TestProject, id: string, status: string, ms = 60_000) =>
    eventually(async () => ((await campaign(p, id)).status === status ? true : undefined), ms, `campaign ${status}`);
  const received = (tag: string) => sink.messages.filter((m) => m.to.some((t) => t.startsWith(tag + '-')));

  it('sends an ALL campaign of 500 contacts exactly once to each eligible contact, personalised', async () => {
    const { p, d } = await setup(500, 'all500');
    // Not eligible for MARKETING mail: unsubscribed, suppressed, snoozed.
    await h.sql(
      `update contacts set subscribed = false where project_id = $1 and email in ('all500-1@rcpt.test', 'all500-2@rcpt.test')`,
      [p.id],
    );
    await h.sql(`insert into suppressions (project_id, email, reason) values ($1, 'all500-3@rcpt.test', 'bounce')`, [
      p.id,
    ]);
    await h.sql(
      `update contacts set snoozed_until = now() + interval '1 day' where project_id = $1 and email = 'all500-4@rcpt.test'`,
      [p.id],
    );
    // A snooze that has ended does not hold mail back.
    await h.sql(
      `update contacts set snoozed_until = now() - interval '1 day' where project_id = $1 and email = 'all500-5@rcpt.test'`,
      [p.id],
    );

    const c = await create(p, d);
    expect(c.status).toBe(201);
    expect(c.body.success).toBe(true);
    expect(c.body.data).toMatchObject({ status: 'DRAFT', type: 'MARKETING', audienceType: 'ALL', totalRecipients: 0 });
    const id = c.body.data.id;

    const s = await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey, body: {} });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({
      success: true,
      data: { id, name: 'Spring news', status: 'SENDING', scheduledFor: null },
    });
    expect(typeof s.body.message).toBe('string');

    await waitStatus(p, id, 'SENT');
    const got = received('all500');
    expect(got).toHaveLength(496);
    const rcpts = got.map((m) => m.to[0]);
    expect(new Set(rcpts).size).toBe(496);
    for (const skipped of ['all500-1', 'all500-2', 'all500-3', 'all500-4'])
      expect(rcpts).not.toContain(`${skipped}@rcpt.test`);
    expect(rcpts).toContain('all500-5@rcpt.test');

    // Personalisation per recipient: data when present, the fallback otherwise; unsubscribe link.
    const m8 = got.find((m) => m.to[0] === 'all500-8@rcpt.test')!;
    expect(m8.parsed.subject).toBe('Hello Name8');
    expect(m8.parsed.html).toContain('Hi Name8, plan pro.');
    const m7 = got.find((m) => m.to[0] === 'all500-7@rcpt.test')!;
    expect(m7.parsed.subject).toBe('Hello there');
    expect(m7.parsed.html).toContain('Hi there, plan none.');
    expect(m7.parsed.html).toMatch(/\/unsubscribe\/[A-Za-z0-9_.-]+/);
    expect(rawHeader(m7.raw, 'List-Unsubscribe')).toMatch(/^<[^>]+\/unsubscribe\/[^>]+>, <mailto:/);
    const unsub7 = /\/unsubscribe\/([A-Za-z0-9_.-]+)/.exec(m7.parsed.html as string)![1];
    const unsub8 = /\/unsubscribe\/([A-Za-z0-9_.-]+)/.exec(m8.parsed.html as string)![1];
    expect(unsub7).not.toBe(unsub8);

    const done = await campaign(p, id);
    expect(done).toMatchObject({
      status: 'SENT',
      totalRecipients: 496,
      sentCount: 496,
      deliveredCount: 496,
      bouncedCount: 0,
      openedCount: 0,
    });
    expect(done.sentAt).toEqual(expect.any(String));
    const rows = await h.sql(
      `select count(*)::int as n, count(distinct contact_id)::int as c from emails where campaign_id = $1`,
      [id],
    );
    expect(rows[0]).toEqual({ n: 496, c: 496 });

    // Counters follow email events: an open through the tracking pixel.
    const pixel = /src="([^"]+\/t\/o\/[^"]+)"/.exec(m8.parsed.html as string)![1];
    await fetch(pixel.replace(/^https?:\/\/[^/]+/, h.url));
    const stats = (await h.request('GET', `/campaigns/${id}/stats`, { key: p.secretKey })).body;
    expect(stats).toMatchObject({
      sentCount: 496,
      deliveredCount: 496,
      openedCount: 1,
      clickedCount: 0,
      bouncedCount: 0,
      failedCount: 0,
      pendingCount: 0,
    });
    expect(stats.openRate).toBeCloseTo(100 / 496, 2);
    expect((await campaign(p, id)).openedCount).toBe(1);

    // SENT is final: no second send.
    const again = await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
  }, 120_000);

  it('sends to a STATIC segment, a DYNAMIC segment and a FILTERED audience', async () => {
    const { p, d } = await setup(40, 'aud');
    const stat = await h.request('POST', '/segments', { key: p.secretKey, body: { name: 'VIPs', type: 'STATIC' } });
    expect(stat.status).toBe(201);
    await h.request('POST', `/segments/${stat.body.id}/members`, {
      key: p.secretKey,
      body: { emails: ['aud-1@rcpt.test', 'aud-2@rcpt.test', 'aud-3@rcpt.test'] },
    });
    const dyn = await h.request('POST', '/segments', {
      key: p.secretKey,
      body: {
        name: 'Pro',
        condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
      },
    });
    expect(dyn.status).toBe(201);

    const send = async (extra: Record<string, unknown>) => {
      const c = await create(p, d, extra);
      expect(c.status).toBe(201);
      expect(
        (
          await h.request('POST', `/campaigns/${c.body.data.id}/send`, {
            key: p.secretKey,
            body: { scheduledFor: null },
          })
        ).status,
      ).toBe(200);
      await waitStatus(p, c.body.data.id, 'SENT');
      const rows = await h.sql(`select to_email from emails where campaign_id = $1 order by to_email`, [
        c.body.data.id,
      ]);
      return rows.map((r) => r.to_email as string);
    };
    expect(await send({ audienceType: 'SEGMENT', segmentId: stat.body.id })).toEqual([
      'aud-1@rcpt.test',
      'aud-2@rcpt.test',
      'aud-3@rcpt.test',
    ]);
    const pro = await send({ audienceType: 'SEGMENT', segmentId: dyn.body.id });
    expect(pro).toHaveLength(10);
    expect(pro.every((e) => Number(/aud-(\d+)@/.exec(e)![1]) % 4 === 0)).toBe(true);
    const filtered = await send({
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'OR',
        groups: [
          { filters: [{ field: 'email', operator: 'equals', value: 'aud-7@rcpt.test' }] },
          { filters: [{ field: 'email', operator: 'equals', value: 'aud-9@rcpt.test' }] },
        ],
      },
    });
    expect(filtered).toEqual(['aud-7@rcpt.test', 'aud-9@rcpt.test']);
    expect(received('aud').filter((m) => m.to[0] === 'aud-7@rcpt.test')).toHaveLength(1);
  }, 60_000);

  it('fires a scheduled campaign from its durable job, and reschedules by replacing the job', async () => {
    const { p, d } = await setup(5, 'sched');
    const id = (await create(p, d)).body.data.id;
    const later = new Date(Date.now() + 3600_000).toISOString();
    const s = await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey, body: { scheduledFor: later } });
    expect(s.status).toBe(200);
    expect(s.body.data).toEqual({ id, name: 'Spring news', status: 'SCHEDULED', scheduledFor: later });
    const jobs = () => h.sql(`select run_at from ${JOBS} j where key = $1`, [`campaign:${id}`]);
    expect((await jobs()).map((j) => j.run_at.toISOString())).toEqual([later]);

    // Rescheduling a SCHEDULED campaign replaces its one job.
    const later2 = new Date(Date.now() + 7200_000).toISOString();
    expect(
      (await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey, body: { scheduledFor: later2 } })).status,
    ).toBe(200);
    expect((await jobs()).map((j) => j.run_at.toISOString())).toEqual([later2]);
    expect((await campaign(p, id)).status).toBe('SCHEDULED');

    // Bring the scheduled job forward instead of waiting two hours.
    await jobsDueNow(h, `campaign:${id}`);
    await waitStatus(p, id, 'SENT');
    expect(received('sched')).toHaveLength(5);
    expect((await campaign(p, id)).scheduledFor).toBe(later2);
  }, 60_000);

  it('sends a SCHEDULED campaign now when asked without a date, replacing its scheduled job', async () => {
    const { p, d } = await setup(3, 'sendnow');
    const id = (await create(p, d)).body.data.id;
    await h.request('POST', `/campaigns/${id}/send`, {
      key: p.secretKey,
      body: { scheduledFor: new Date(Date.now() + 86_400_000).toISOString() },
    });
    const now = await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey });
    expect(now.status).toBe(200);
    expect(now.body.data).toEqual({ id, name: 'Spring news', status: 'SENDING', scheduledFor: null });
    await waitStatus(p, id, 'SENT');
    expect(received('sendnow')).toHaveLength(3);
    // The day-ahead job is gone: nothing fires tomorrow.
    expect(await h.sql(`select 1 from ${JOBS} j where key = $1`, [`campaign:${id}`])).toHaveLength(0);
  }, 60_000);

  it('a past scheduledFor sends now; an unparseable one is 400', async () => {
    const { p, d } = await setup(2, 'past');
    const id = (await create(p, d)).body.data.id;
    const bad = await h.request('POST', `/campaigns/${id}/send`, {
      key: p.secretKey,
      body: { scheduledFor: 'next tuesday-ish' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('BAD_REQUEST');
    expect(
      (await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey, body: { scheduledFor: true } })).status,
    ).toBe(400);
    expect((await campaign(p, id)).status).toBe('DRAFT');
    const past = await h.request('POST', `/campaigns/${id}/send`, {
      key: p.secretKey,
      body: { scheduledFor: '2020-01-01T00:00:00Z' },
    });
    expect(past.status).toBe(200);
    expect(past.body.data.status).toBe('SENDING');
    await waitStatus(p, id, 'SENT');
    expect(received('past')).toHaveLength(2);
  }, 60_000);

  it('cancels a scheduled campaign (its job is removed) and nothing is sent', async () => {
    const { p, d } = await setup(3, 'cansched');
    const id = (await create(p, d)).body.data.id;
    await h.request('POST', `/campaigns/${id}/send`, {
      key: p.secretKey,
      body: { scheduledFor: new Date(Date.now() + 60_000).toISOString() },
    });
    const c = await h.request('POST', `/campaigns/${id}/cancel`, { key: p.secretKey });
    expect(c.status).toBe(200);
    expect(c.body.status).toBe('CANCELLED');
    expect(await h.sql(`select 1 from ${JOBS} j where key = $1`, [`campaign:${id}`])).toHaveLength(0);
    expect((await h.request('POST', `/campaigns/${id}/cancel`, { key: p.secretKey })).status).toBe(409);
    expect((await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey })).status).toBe(409);
    expect(await h.sql(`select 1 from emails where campaign_id = $1`, [id])).toHaveLength(0);
    expect(received('cansched')).toHaveLength(0);
  });

  it('cancels during a send: mail already handed over stays sent, the rest never goes', async () => {
    const { p, d } = await setup(1000, 'cansend');
    const id = (await create(p, d)).body.data.id;
    expect((await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey })).status).toBe(200);
    await eventually(async () => received('cansend').length >= 5, 30_000, 'first mails');
    const c = await h.request('POST', `/campaigns/${id}/cancel`, { key: p.secretKey });
    expect(c.status).toBe(200);
    expect(c.body.status).toBe('CANCELLED');
    // Let queued send jobs run: they must find nothing to send.
    await eventually(
      async () =>
        (await h.sql(`select 1 from emails where campaign_id = $1 and status in ('PENDING', 'SENDING')`, [id]))
          .length === 0,
      30_000,
      'no mail in flight',
    );
    await eventually(
      async () =>
        (
          await h.sql(
            `select 1 from ${JOBS} j where j.task_identifier = 'emails:send' and j.payload->>'emailId' in (select id::text from emails where campaign_id = $1)`,
            [id],
          )
        ).length === 0,
      30_000,
      'send jobs drained',
    );
    const rows = await h.sql(
      `select status, error, count(*)::int as n from emails where campaign_id = $1 group by 1, 2 order by 1`,
      [id],
    );
    const delivered = rows.find((r) => r.status === 'DELIVERED')?.n ?? 0;
    const cancelled = rows.find((r) => r.status === 'FAILED' && r.error === 'cancelled')?.n ?? 0;
    expect(delivered).toBeGreaterThanOrEqual(5);
    expect(cancelled).toBeGreaterThan(0);
    expect(received('cansend')).toHaveLength(delivered);
    expect(new Set(received('cansend').map((m) => m.to[0])).size).toBe(delivered);
    expect((await campaign(p, id)).status).toBe('CANCELLED');
  }, 60_000);

  it('checks the monthly cap again when a scheduled campaign fires: over it, CANCELLED with the reason, nothing sent', async () => {
    const { p, d } = await setup(4, 'capfire');
    const id = (await create(p, d)).body.data.id;
    const later = new Date(Date.now() + 3600_000).toISOString();
    expect(
      (await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey, body: { scheduledFor: later } })).status,
    ).toBe(200);
    // Room for 4 when scheduled; by the time it fires the owner lowered the cap to 3.
    const put = await h.request('PUT', `/users/@me/projects/${p.id}/billing-limits`, {
      cookie: p.owner.cookie,
      body: { transactional: null, campaigns: 3, workflows: null },
    });
    expect(put.status).toBe(200);
    await jobsDueNow(h, `campaign:${id}`);
    await waitStatus(p, id, 'CANCELLED');
    const c = await campaign(p, id);
    expect(c.statusReason).toBe('Not sent at its scheduled time: Monthly campaigns limit of 3 emails reached (0 used)');
    expect(c.totalRecipients).toBe(0);
    expect(await h.sql('select 1 from emails where campaign_id = $1', [id])).toEqual([]);
    expect(received('capfire')).toEqual([]);
  }, 60_000);

  it('a campaign whose audience is empty goes straight to SENT with zero counters', async () => {
    const { p, d } = await setup(2, 'empty');
    await h.sql(`update contacts set subscribed = false where project_id = $1`, [p.id]);
    const id = (await create(p, d)).body.data.id;
    const s = await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey });
    expect(s.body.message).toBe('Campaign is being sent to 0 recipients');
    await waitStatus(p, id, 'SENT');
    expect(await campaign(p, id)).toMatchObject({ totalRecipients: 0, sentCount: 0 });
    // TRANSACTIONAL campaigns go to unsubscribed contacts too.
    const t = (await create(p, d, { type: 'TRANSACTIONAL' })).body.data.id;
    await h.request('POST', `/campaigns/${t}/send`, { key: p.secretKey });
    await waitStatus(p, t, 'SENT');
    expect(received('empty')).toHaveLength(2);
  }, 60_000);

  it('sends a test to one address with a [TEST] subject, not counted in the campaign', async () => {
    const { p, d } = await setup(1, 'tst');
    const id = (await create(p, d)).body.data.id;
    const r = await h.request('POST', `/campaigns/${id}/test`, { key: p.secretKey, body: { email: 'Boss@Rcpt.test' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, data: { email: 'boss@rcpt.test', campaignId: id } });
    const [m] = await eventually(
      async () => {
        const l = sink.to('boss@rcpt.test');
        return l.length ? l : undefined;
      },
      20_000,
      'test mail',
    );
    expect(m.parsed.subject).toBe('[TEST] Hello there');
    expect(m.parsed.headers.get('x-pigeon-test')).toBe('true');
    expect(
      await h.sql(`select source_type from emails where to_email = 'boss@rcpt.test' and project_id = $1`, [p.id]),
    ).toEqual([{ source_type: 'TEST' }]);
    expect(await campaign(p, id)).toMatchObject({ status: 'DRAFT', sentCount: 0 });
    expect(
      (await h.request('POST', `/campaigns/${id}/test`, { key: p.secretKey, body: { email: 'nope' } })).status,
    ).toBe(422);
  }, 30_000);
});
