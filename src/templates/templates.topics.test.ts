import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createTemplate, createVerifiedDomain, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { topicUsers } from '../topics/users.js';
import { runStep } from '../workflows/step-job.js';
import { deliverEmail } from '../emails/delivery/deliver.js';
import { MARKETING_SKIPPED } from '../emails/eligibility.js';

// Templates and workflow SEND_EMAIL steps with a topic (issue 35; campaigns: topics/topic-sends.test.ts):
// their MARKETING mail goes only to the topic's members, transactional mail ignores topics. Membership
// rows are written with SQL. No worker: the test runs deliveries and workflow steps itself.
describe('templates and workflow steps under a topic', () => {
  let h: Harness;
  let sink: SmtpSink;
  let p: TestProject;
  let d: TestDomain;
  /** Topics of `p`: `news` opt-in, `digest` opt-out. */
  const topic: Record<'news' | 'digest', string> = { news: randomUUID(), digest: randomUUID() };
  /** Contacts of `p` by name (address `<name>@topics.test`). */
  const contact: Record<string, string> = {};
  const attempt = { attempt: 1, maxAttempts: 3 };
  const addr = (who: string) => `${who}@topics.test`;
  const req = (method: string, path: string, body?: unknown) => h.request(method, path, { key: p.secretKey, body });
  const rowsOf = (where: string, arg: string) =>
    h.sql<{ to_email: string; status: string; error: string | null; topic_id: string | null }>(
      `select to_email, status, error, topic_id from emails where ${where} = $1 order by to_email`,
      [arg],
    );

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url } });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
    await h.sql(
      `insert into topics (id, project_id, name, subscription_default) values ($1, $3, 'News', 'opt-in'), ($2, $3, 'Digest', 'opt-out')`,
      [topic.news, topic.digest, p.id],
    );
    // in: joined News; out: no choice; left: left Digest; unsub: joined News, unsubscribed; snoozed:
    // joined News, snoozed; leaver: joined News, leaves it after the fan-out.
    for (const who of ['in', 'out', 'left', 'unsub', 'snoozed', 'leaver']) {
      contact[who] = randomUUID();
      await h.sql(
        `insert into contacts (id, project_id, email, subscribed, snoozed_until) values ($1, $2, $3, $4, $5)`,
        [contact[who], p.id, addr(who), who !== 'unsub', who === 'snoozed' ? new Date(Date.now() + 86_400_000) : null],
      );
    }
    const choice = (who: string, t: string, subscribed: boolean) =>
      h.sql(`insert into contact_topics (topic_id, contact_id, project_id, subscribed) values ($1, $2, $3, $4)`, [
        t,
        contact[who],
        p.id,
        subscribed,
      ]);
    for (const who of ['in', 'unsub', 'snoozed', 'leaver']) await choice(who, topic.news, true);
    await choice('left', topic.digest, false);
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  it('a template send with a topic skips non-members; a transactional one ignores the topic', async () => {
    const tpl = async (type: string) => {
      const t = await req('POST', '/templates', {
        name: type,
        subject: type,
        body: `<p>${type}</p>`,
        from: `hi@${d.domain}`,
        type,
        topicId: topic.news,
      });
      expect(t.status, t.text).toBe(201);
      expect(t.body.topicId).toBe(topic.news);
      return t.body.id as string;
    };
    const marketing = await tpl('MARKETING');
    const transactional = await tpl('TRANSACTIONAL');
    for (const [template, to] of [
      [marketing, 'out'],
      [marketing, 'in'],
      [transactional, 'out'],
    ]) {
      const r = await h.request('POST', '/v1/send', { key: p.secretKey, body: { to: [addr(to)], template } });
      expect(r.status, r.text).toBe(200);
    }
    expect((await rowsOf('template_id', marketing)).map((r) => [r.to_email, r.status, r.topic_id])).toEqual([
      [addr('in'), 'PENDING', topic.news],
      [addr('out'), 'SUPPRESSED', topic.news],
    ]);
    expect((await rowsOf('template_id', marketing))[1].error).toBe(MARKETING_SKIPPED);
    const [sent] = await rowsOf('template_id', transactional);
    expect(sent).toMatchObject({ to_email: addr('out'), status: 'PENDING', topic_id: null });
    const [{ id }] = await h.sql<{ id: string }>(`select id from emails where template_id = $1`, [transactional]);
    await deliverEmail(h.deps, id, attempt);
    expect(sink.to(addr('out')).map((m) => m.parsed.subject)).toEqual(['TRANSACTIONAL']);
  });

  it('a workflow SEND_EMAIL step with a topicId skips a contact outside the topic', async () => {
    const tpl = await createTemplate(h, p.id, { subject: 'Flow', body: '<p>f</p>', from: `flow@${d.domain}` });
    const wf = await req('POST', '/workflows', { name: 'topic flow', eventName: 'topic-flow' });
    const step = await req('POST', `/workflows/${wf.body.id}/steps`, {
      type: 'SEND_EMAIL',
      name: 'send',
      config: { templateId: tpl, topicId: topic.news },
    });
    expect(step.status, step.text).toBe(201);
    await req('POST', `/workflows/${wf.body.id}/transitions`, {
      fromStepId: wf.body.steps[0].id,
      toStepId: step.body.id,
    });
    expect((await req('PATCH', `/workflows/${wf.body.id}`, { enabled: true })).status).toBe(200);
    for (const who of ['in', 'out']) {
      const e = await req('POST', `/workflows/${wf.body.id}/executions`, { contactId: contact[who] });
      expect(e.status, e.text).toBe(201);
      // The step's job, run here (no worker).
      await runStep(h.deps, e.body.id, e.body.currentStepId);
    }
    const rows = await rowsOf('template_id', tpl);
    expect(rows.map((r) => [r.to_email, r.status, r.topic_id])).toEqual([
      [addr('in'), 'PENDING', topic.news],
      [addr('out'), 'SUPPRESSED', topic.news],
    ]);
    // Everything that sends under News, for the 409 of DELETE /topics; the foreign keys refuse the delete too.
    const users = await topicUsers(h.deps.db, p.id, topic.news);
    expect(users.workflows).toEqual([{ id: wf.body.id, name: 'topic flow' }]);
    expect(users.campaigns).toEqual([]);
    expect(users.templates.map((t) => t.name)).toEqual(['MARKETING', 'TRANSACTIONAL']);
    const del = await req('DELETE', `/topics/${topic.news}`);
    expect(del.status).toBe(409);
    expect(del.body.error.message).toBe(
      'The topic is used by the templates "MARKETING", "TRANSACTIONAL", the workflow "topic flow"',
    );
  });

  it('refuses a topicId that is not a topic of the project with 422, and writes nothing', async () => {
    const other = await createProject(h);
    const foreign = randomUUID();
    await h.sql(
      `insert into topics (id, project_id, name, subscription_default) values ($1, $2, 'Theirs', 'opt-out')`,
      [foreign, other.id],
    );
    const counts = `select (select count(*)::int from campaigns) c, (select count(*)::int from templates) t`;
    const [before] = await h.sql<{ c: number; t: number }>(counts);
    const tpl = await createTemplate(h, p.id, { subject: 'T', body: '<p>t</p>', from: `flow@${d.domain}` });
    const wf = await req('POST', '/workflows', { name: 'foreign topic', eventName: 'foreign-topic' });
    const base = { subject: 'S', body: '<p>b</p>', from: `hi@${d.domain}`, topicId: foreign };
    for (const [method, path, body, field] of [
      ['POST', '/campaigns', { name: 'X', ...base }, 'topicId'],
      ['POST', '/campaigns/audience-count', { topicId: 'not-a-uuid' }, 'topicId'],
      ['POST', '/templates', { name: 'X', ...base }, 'topicId'],
      ['PATCH', `/templates/${tpl}`, { topicId: randomUUID() }, 'topicId'],
      [
        'POST',
        `/workflows/${wf.body.id}/steps`,
        { type: 'SEND_EMAIL', name: 's', config: { templateId: tpl, topicId: foreign } },
        'config.topicId',
      ],
    ] as const) {
      const r = await req(method, path, body);
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(422);
      expect(r.body.error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field, code: 'unknown_topic' }] });
    }
    // Only the template made above with SQL.
    expect(await h.sql(counts)).toEqual([{ c: before.c, t: before.t + 1 }]);
    expect((await req('GET', `/templates/${tpl}`)).body.topicId).toBeNull();
    expect(
      await h.sql(`select 1 from workflow_steps where workflow_id = $1 and type = 'SEND_EMAIL'`, [wf.body.id]),
    ).toEqual([]);
  });
});
