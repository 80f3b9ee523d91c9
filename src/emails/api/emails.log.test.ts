import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness, type Response } from '../../../test/harness.js';
import { eventually } from '../../../test/sending-fixtures.js';

// GET /emails and GET /emails/:id: the project's outgoing mail, filtered and paged, and one email with
// its events and the message as rendered.
describe('the email log', () => {
  let h: Harness;
  let p: TestProject;
  let other: TestProject;
  const ids: string[] = [];
  let campaignId: string;
  let workflowId: string;
  let campaignEmail: string;
  let workflowEmail: string;
  const list = (query = '', proj = p) => h.request('GET', `/emails${query}`, { key: proj.secretKey });

  /** An email row as a campaign's fan-out or a workflow step writes it (their own tests cover how). */
  async function insertEmail(
    projectId: string,
    f: { to: string; subject: string; source: string; campaignId?: string; executionId?: string; status?: string },
  ) {
    const id = randomUUID();
    await h.sql(
      `insert into emails (id, project_id, to_email, from_email, subject, body, source_type, campaign_id, workflow_execution_id, status, created_at, updated_at)
      values ($1, $2, $3, 'me@laptop.test', $4, '<p>x</p>', $5, $6, $7, $8, $9, $9)`,
      [
        id,
        projectId,
        f.to,
        f.subject,
        f.source,
        f.campaignId ?? null,
        f.executionId ?? null,
        f.status ?? 'PENDING',
        h.clock.now().toISOString(),
      ],
    );
    return id;
  }

  beforeAll(async () => {
    h = await createHarness({ worker: true, localSenderRule: true });
    [p, other] = await Promise.all([createProject(h), createProject(h)]);
    h.clock.set(new Date('2030-01-10T12:00:00Z'));
    for (let i = 1; i <= 5; i++) {
      const res = await h.request('POST', '/v1/send', {
        key: p.secretKey,
        body: {
          to: { name: `Reader ${i}`, email: `reader${i}@example.test` },
          from: { name: 'Me', email: 'me@laptop.test' },
          subject: `Issue {{n}}`,
          body: `<p>Hello {{ name }}, issue <b>{{n}}</b></p>`,
          data: { n: String(i), name: `R${i}` },
        },
      });
      expect(res.status).toBe(200);
      ids.push(res.body.data.emails[0].email);
      h.clock.advance(60_000);
    }
    await eventually(
      async () =>
        (await h.sql(`select count(*)::int as n from emails where project_id = $1 and status = 'SENT'`, [p.id]))[0]
          .n === 5,
    );
    campaignId = (
      await h.request('POST', '/campaigns', {
        key: p.secretKey,
        body: { name: 'Spring sale', subject: 'Sale', body: '<p>Sale</p>', from: 'me@laptop.test' },
      })
    ).body.data.id;
    h.clock.set(new Date('2030-01-11T12:00:00Z'));
    campaignEmail = await insertEmail(p.id, {
      to: 'buyer@example.test',
      subject: 'Sale',
      source: 'CAMPAIGN',
      campaignId,
      status: 'FAILED',
    });
    workflowId = (
      await h.request('POST', '/workflows', { key: p.secretKey, body: { name: 'Onboarding', eventName: 'signup' } })
    ).body.id;
    const [contact] = await h.sql(`select id from contacts where project_id = $1 limit 1`, [p.id]);
    const execution = randomUUID();
    await h.sql(`insert into workflow_executions (id, workflow_id, project_id, contact_id) values ($1, $2, $3, $4)`, [
      execution,
      workflowId,
      p.id,
      contact.id,
    ]);
    h.clock.advance(60_000);
    workflowEmail = await insertEmail(p.id, {
      to: 'newbie@example.test',
      subject: 'Welcome',
      source: 'WORKFLOW',
      executionId: execution,
    });
    await insertEmail(other.id, { to: 'reader1@example.test', subject: 'Not yours', source: 'TRANSACTIONAL' });
  }, 60_000);
  afterAll(async () => h?.close());

  it("lists the project's emails newest first with status, recipient, subject as sent and source", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(7);
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual([
      workflowEmail,
      campaignEmail,
      ...[...ids].reverse(),
    ]);
    const [wf, camp, newest] = res.body.data;
    expect(wf.source).toEqual({
      type: 'workflow',
      campaign: null,
      workflow: { id: workflowId, name: 'Onboarding', executionId: expect.any(String) },
      template: null,
    });
    expect(camp).toMatchObject({
      status: 'FAILED',
      source: { type: 'campaign', campaign: { id: campaignId, name: 'Spring sale' }, workflow: null },
    });
    expect(newest).toMatchObject({
      id: ids[4],
      status: 'SENT',
      to: { email: 'reader5@example.test', name: 'Reader 5' },
      from: { email: 'me@laptop.test', name: 'Me' },
      subject: 'Issue 5',
      type: 'TRANSACTIONAL',
      source: { type: 'api', campaign: null, workflow: null, template: null },
      // No domain is verified: with the outbox (localSenderRule) the mail went all the same, unsigned.
      senderVerified: false,
      error: null,
    });
    expect(newest.createdAt).toMatch(/^2030-01-10T12:04:00\.\d{3}Z$/);
    expect(newest.sentAt).toEqual(expect.any(String));
  });

  it('pages by cursor without repeating or skipping, total on the first page only', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Response<{ data: Array<{ id: string }>; cursor: string | null; hasMore: boolean; total: number }> =
        await list(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(pages === 0 ? 7 : 0);
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      cursor = res.body.cursor;
      expect(res.body.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([workflowEmail, campaignEmail, ...[...ids].reverse()]);
  });

  it('filters by status, recipient, source, campaign, workflow and time', async () => {
    const idsOf = async (q: string) => {
      const res = await list(q);
      expect(res.status, q).toBe(200);
      return res.body.data.map((e: { id: string }) => e.id);
    };
    expect(await idsOf('?status=FAILED')).toEqual([campaignEmail]);
    expect(await idsOf('?status=failed,pending')).toEqual([workflowEmail, campaignEmail]);
    expect(await idsOf('?status=SENT&status=FAILED')).toHaveLength(6);
    expect(await idsOf('?to=READER3')).toEqual([ids[2]]);
    expect(await idsOf('?to=%25')).toEqual([]);
    expect(await idsOf('?source=api')).toEqual([...ids].reverse());
    expect(await idsOf('?source=campaign')).toEqual([campaignEmail]);
    expect(await idsOf(`?campaignId=${campaignId}`)).toEqual([campaignEmail]);
    expect(await idsOf(`?workflowId=${workflowId}`)).toEqual([workflowEmail]);
    expect(await idsOf('?source=test')).toEqual([]);
    expect(await idsOf('?since=2030-01-10T12:01:00Z&until=2030-01-10T12:03:00Z')).toEqual([ids[2], ids[1]]);
    expect(await idsOf('?since=2030-01-11')).toEqual([workflowEmail, campaignEmail]);
    const counted = await list('?source=api&limit=2');
    expect(counted.body).toMatchObject({ total: 5, hasMore: true });
  });

  it('answers 422 in the error envelope for bad filters and a foreign cursor', async () => {
    for (const q of [
      '?status=LOST',
      '?source=fax',
      '?since=yesterday',
      '?campaignId=12',
      '?limit=0',
      '?to=',
      '?since=2030-01-02&until=2030-01-01',
      '?cursor=bm90LWEtY3Vyc29y',
    ]) {
      const res = await list(q);
      expect(res.status, q).toBe(422);
      expect(res.body.success, q).toBe(false);
      expect(res.body.error.code, q).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors.length, q).toBeGreaterThan(0);
    }
  });

  it('shows one email: times, source, events and the message rendered as sent', async () => {
    const res = await h.request('GET', `/emails/${ids[1]}`, { key: p.secretKey });
    expect(res.status).toBe(200);
    const e = res.body;
    expect(e).toMatchObject({
      id: ids[1],
      status: 'SENT',
      subject: 'Issue 2',
      to: { email: 'reader2@example.test' },
      attempts: 1,
      messageId: `<${ids[1]}@laptop.test>`,
      deliveredAt: null,
      openedAt: null,
      error: null,
      headers: {},
      attachments: [],
      rendered: { subject: 'Issue 2', html: '<p>Hello R2, issue <b>2</b></p>', text: 'Hello R2, issue 2' },
      renderError: null,
    });
    expect(e.events.map((v: { name: string }) => v.name)).toEqual(['email.sent']);
    expect(e.events[0].data).toMatchObject({ emailId: ids[1], subject: 'Issue 2' });
    // Rendered without tracking: looking at it is no open.
    expect(e.rendered.html).not.toContain('/t/o/');
  });

  it('renders a mail not sent yet from its template, and a session of a member sees it too', async () => {
    // Back to today: the session was opened today and would have expired by 2030.
    h.clock.set(new Date());
    const res = await h.request('GET', `/emails/${workflowEmail}`, {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'PENDING',
      sentAt: null,
      events: [],
      rendered: { subject: 'Welcome', html: '<p>x</p>' },
    });
  });

  it("answers 404 for another project's email, an unknown id and a malformed one", async () => {
    const [foreign] = await h.sql(`select id from emails where project_id = $1`, [other.id]);
    for (const id of [foreign.id, randomUUID(), 'not-an-id']) {
      const res = await h.request('GET', `/emails/${id}`, { key: p.secretKey });
      expect(res.status, id).toBe(404);
      expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
    // And the other project's list holds only its own.
    expect((await list('', other)).body.data.map((e: { subject: string }) => e.subject)).toEqual(['Not yours']);
  });
});
