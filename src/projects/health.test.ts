import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createTemplate, createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { runFanout } from '../campaigns/fanout.js';
import { workflowApi } from '../../test/workflows-helpers.js';

/**
 * Sender health on the security overview, and the pause of campaign and MARKETING workflow mail at
 * the critical level. Bounces and complaints are rows written in SQL (status BOUNCED / COMPLAINED),
 * as SMTP outcomes and provider feedback leave them.
 */
describe('sender health', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(() => h?.close());

  /** `n` emails of `status`, queued `daysAgo` days ago (fractions allowed; negative: after now). */
  const mails = (p: TestProject, status: string, n: number, daysAgo = 0) =>
    h.sql(
      `insert into emails (id, project_id, to_email, from_email, subject, body, source_type, status, created_at)
     select gen_random_uuid(), $1, 'r' || g || '@example.test', 'a@example.test', 's', 'b', 'TRANSACTIONAL', $2,
       now() - $4::float8 * interval '1 day'
     from generate_series(1, $3::int) g`,
      [p.id, status, n, daysAgo],
    );
  const health = async (p: TestProject) => {
    const res = await h.request('GET', `/projects/${p.id}/security`, { key: p.secretKey });
    expect(res.status, res.text).toBe(200);
    return res.body.senderHealth;
  };

  it('reports the rates of 7 and 30 days on both security endpoints, keeping their other fields', async () => {
    const p = await createProject(h);
    await mails(p, 'DELIVERED', 94);
    await mails(p, 'BOUNCED', 6);
    // Not sent, so not counted: queued, failed, skipped mail.
    for (const s of ['PENDING', 'FAILED', 'SUPPRESSED']) await mails(p, s, 50);
    const viaSession = await h.request('GET', `/users/@me/projects/${p.id}/security`, { cookie: p.owner.cookie });
    expect(viaSession.status).toBe(200);
    expect(viaSession.body).toMatchObject({
      id: p.id,
      keysStoredAs: 'sha256',
      tracking: 'ENABLED',
      disabled: false,
      members: { owners: 1, admins: 0, members: 0 },
      verifiedDomains: [],
      publicKey: expect.stringMatching(/^pk_…/),
      secretKey: expect.stringMatching(/^sk_…/),
    });
    const week = {
      days: 7,
      sent: 100,
      bounced: 6,
      complained: 0,
      bounceRate: 0.06,
      complaintRate: 0,
      bounceLevel: 'warning',
      complaintLevel: 'healthy',
      level: 'warning',
    };
    expect(viaSession.body.senderHealth).toEqual({
      level: 'warning',
      last7Days: week,
      last30Days: { ...week, days: 30 },
      paused: false,
      acknowledgedAt: null,
      acknowledgedBy: null,
      minimumSent: 100,
      thresholds: { bounce: { warning: 0.05, critical: 0.1 }, complaint: { warning: 0.001, critical: 0.005 } },
    });
    expect(await health(p)).toEqual(viaSession.body.senderHealth);
  });

  it('stays healthy below 100 sent mails, whatever the rate', async () => {
    const p = await createProject(h);
    await mails(p, 'SENT', 2);
    await mails(p, 'BOUNCED', 1);
    const s = await health(p);
    expect(s.last7Days).toMatchObject({
      sent: 3,
      bounced: 1,
      bounceRate: 0.333333,
      bounceLevel: 'healthy',
      level: 'healthy',
    });
    expect(s).toMatchObject({ level: 'healthy', paused: false });
  });

  it('counts complaints, and each window only its own days (older than 30 days: not at all)', async () => {
    const p = await createProject(h);
    await mails(p, 'OPENED', 995, 10);
    await mails(p, 'COMPLAINED', 5, 10);
    await mails(p, 'BOUNCED', 500, 31);
    await mails(p, 'CLICKED', 150, 1);
    const s = await health(p);
    expect(s.last7Days).toMatchObject({ sent: 150, bounced: 0, complained: 0, level: 'healthy' });
    // 5 / 1150 = 0.43 %: warning; without the 150 recent ones it would be 0.5 %, critical.
    expect(s.last30Days).toMatchObject({
      sent: 1150,
      bounced: 0,
      complained: 5,
      complaintRate: 0.004348,
      complaintLevel: 'warning',
      level: 'warning',
    });
    await mails(p, 'COMPLAINED', 1, 2);
    const worse = await health(p);
    expect(worse.last30Days).toMatchObject({ complained: 6, complaintLevel: 'critical' });
    expect(worse.last7Days).toMatchObject({ sent: 151, complained: 1, complaintLevel: 'critical' });
    expect(worse).toMatchObject({ level: 'critical', paused: true });
  });

  it('at critical pauses campaign sends (403 SENDING_PAUSED) and marketing workflow mail until an OWNER/ADMIN acknowledges; transactional mail flows', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    const key = { key: p.secretKey };
    await h.request('POST', '/contacts', { ...key, body: { email: 'ann@example.test' } });
    const campaign = await h.request('POST', '/campaigns', {
      ...key,
      body: { name: 'News', subject: 'News', from: `news@${d.domain}`, body: '<p>n</p>' },
    });
    expect(campaign.status, campaign.text).toBe(201);
    await mails(p, 'SENT', 88);
    await mails(p, 'BOUNCED', 12);

    const refused = await h.request('POST', `/campaigns/${campaign.body.data.id}/send`, key);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe('SENDING_PAUSED');
    expect(refused.body.error.message).toMatch(/bounce rate \(12\.00 %\)/);
    expect((await h.sql('select status from campaigns where id = $1', [campaign.body.data.id]))[0].status).toBe(
      'DRAFT',
    );

    // Transactional mail keeps flowing.
    const receipt = await h.request('POST', '/v1/send', {
      ...key,
      body: { to: 'bob@example.test', subject: 'Receipt', body: '<p>r</p>', from: `shop@${d.domain}` },
    });
    expect(receipt.status, receipt.text).toBe(200);

    // Workflows: MARKETING mail fails the step with the reason, TRANSACTIONAL mail goes.
    const api = workflowApi(h, p);
    const promo = await createTemplate(h, p.id, {
      subject: 'Promo',
      body: '<p>p</p>',
      from: `news@${d.domain}`,
      type: 'MARKETING',
    });
    const welcome = await createTemplate(h, p.id, {
      subject: 'Welcome',
      body: '<p>w</p>',
      from: `hi@${d.domain}`,
      type: 'TRANSACTIONAL',
    });
    const wfPromo = await api.build('promo', { send: ['SEND_EMAIL', { templateId: promo }] }, [['trigger', 'send']]);
    const wfWelcome = await api.build('joined', { send: ['SEND_EMAIL', { templateId: welcome }] }, [
      ['trigger', 'send'],
    ]);
    const cat = await api.track('cat@example.test', 'promo');
    const failed = await api.executionOf(wfPromo.id, cat, 'FAILED');
    const [step] = await h.sql(
      'select status, error from workflow_step_executions where execution_id = $1 and step_id = $2',
      [failed.id, wfPromo.steps.send],
    );
    expect(step.status).toBe('FAILED');
    expect(step.error).toMatch(/^SENDING_PAUSED: /);
    const dan = await api.track('dan@example.test', 'joined');
    await api.executionOf(wfWelcome.id, dan, 'COMPLETED');
    expect(
      await h.sql(
        `select to_email, subject from emails where project_id = $1 and source_type = 'WORKFLOW' order by to_email`,
        [p.id],
      ),
    ).toEqual([{ to_email: 'dan@example.test', subject: 'Welcome' }]);

    // Only a signed-in OWNER or ADMIN acknowledges.
    const member = await createVerifiedUser(h);
    const admin = await createVerifiedUser(h);
    await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: member.email, role: 'MEMBER' },
    });
    await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: admin.email, role: 'ADMIN' },
    });
    const ackPath = `/projects/${p.id}/security/acknowledge`;
    expect((await h.request('POST', ackPath, { cookie: member.cookie })).status).toBe(403);
    expect((await h.request('POST', ackPath, key)).status).toBe(401);
    const ack = await h.request('POST', ackPath, { cookie: admin.cookie });
    expect(ack.status, ack.text).toBe(200);
    expect(ack.body.senderHealth).toMatchObject({
      level: 'critical',
      paused: false,
      acknowledgedBy: admin.id,
      acknowledgedAt: expect.any(String),
    });
    expect(ack.body.id).toBe(p.id);
    const twice = await h.request('POST', `/users/@me/projects/${p.id}/security/acknowledge`, {
      cookie: p.owner.cookie,
    });
    expect(twice.status).toBe(409);

    const sent = await h.request('POST', `/campaigns/${campaign.body.data.id}/send`, key);
    expect(sent.status, sent.text).toBe(200);
    const eve = await api.track('eve@example.test', 'promo');
    await api.executionOf(wfPromo.id, eve, 'COMPLETED');

    // Mail queued after the acknowledgement that reaches the line again pauses again.
    await mails(p, 'SENT', 80, -1 / 24);
    await mails(p, 'BOUNCED', 20, -1 / 24);
    expect(await health(p)).toMatchObject({ paused: true, last7Days: { bounced: 32 } });
  });

  it('a scheduled campaign whose time comes while paused stays SCHEDULED and is looked at again later', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    const key = { key: p.secretKey };
    await h.request('POST', '/contacts', { ...key, body: { email: 'fay@example.test' } });
    const c = await h.request('POST', '/campaigns', {
      ...key,
      body: { name: 'Later', subject: 'Later', from: `news@${d.domain}`, body: '<p>l</p>' },
    });
    const later = new Date(Date.now() + 86_400_000).toISOString();
    expect(
      (await h.request('POST', `/campaigns/${c.body.data.id}/send`, { ...key, body: { scheduledFor: later } })).status,
    ).toBe(200);
    await mails(p, 'SENT', 85);
    await mails(p, 'BOUNCED', 15);
    expect((await health(p)).paused).toBe(true);

    await runFanout(h.deps, c.body.data.id);
    expect((await h.sql('select status from campaigns where id = $1', [c.body.data.id]))[0].status).toBe('SCHEDULED');
    const [job] = await h.sql(`select run_at > now() + interval '30 seconds' as later from ${JOBS} j where key = $1`, [
      `campaign:${c.body.data.id}`,
    ]);
    expect(job).toEqual({ later: true });

    expect((await h.request('POST', `/projects/${p.id}/security/acknowledge`, { cookie: p.owner.cookie })).status).toBe(
      200,
    );
    await runFanout(h.deps, c.body.data.id);
    await eventually(
      async () =>
        (await h.sql('select status from campaigns where id = $1', [c.body.data.id]))[0].status !== 'SCHEDULED',
    );
    expect(await h.sql(`select to_email from emails where campaign_id = $1`, [c.body.data.id])).toEqual([
      { to_email: 'fay@example.test' },
    ]);
  });
});
