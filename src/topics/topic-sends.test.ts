import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { runFanout } from '../campaigns/fanout.js';
import { startWorker, type WorkerHandle } from '../worker/runner.js';

// A MARKETING campaign with a topic (issue 35) reaches the topic's members only, counted the same
// way before sending; a contact who leaves between queueing and sending is not mailed; transactional
// mail ignores topics; a topic in use cannot be deleted.
describe('campaigns to a topic', () => {
  let h: Harness;
  let sink: SmtpSink;
  let worker: WorkerHandle | undefined;

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url } });
  });
  afterAll(async () => {
    await worker?.stop();
    await h?.close();
    await sink?.close();
  });

  const topic = async (p: TestProject, name: string, dflt: 'opt-in' | 'opt-out') => {
    const res = await h.request('POST', '/topics', { key: p.secretKey, body: { name, default: dflt } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const contact = async (p: TestProject, email: string, topics: Record<string, boolean> = {}, extra = {}) => {
    const res = await h.request('POST', '/contacts', { key: p.secretKey, body: { email, topics, ...extra } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const campaign = async (p: TestProject, d: TestDomain, topicId: string | null, type = 'MARKETING') => {
    const res = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: `To ${topicId}`, subject: 'News', body: '<p>News</p>', from: `news@${d.domain}`, type, topicId },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.topicId).toBe(topicId);
    return res.body.data.id as string;
  };
  const count = async (p: TestProject, topicId: string | null, type = 'MARKETING') => {
    const res = await h.request('POST', '/campaigns/audience-count', { key: p.secretKey, body: { type, topicId } });
    expect(res.status, res.text).toBe(200);
    return res.body.count as number;
  };
  const statuses = (campaignId: string) =>
    h.sql<{ to_email: string; status: string; topic_id: string | null }>(
      'select to_email, status, topic_id from emails where campaign_id = $1 order by to_email',
      [campaignId],
    );

  it('mails only the members of an opt-in or opt-out topic, never an unsubscribed or snoozed one, and counts them alike', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    const digest = await topic(p, 'Digest', 'opt-in');
    const news = await topic(p, 'News', 'opt-out');
    await contact(p, 'a@topic-send.test', { Digest: true });
    await contact(p, 'b@topic-send.test', { News: false });
    await contact(p, 'c@topic-send.test', { Digest: true }, { subscribed: false });
    const snoozed = await contact(p, 'd@topic-send.test', { Digest: true });
    await h.sql(`update contacts set snoozed_until = now() + interval '1 day' where id = $1`, [snoozed]);
    const late = await contact(p, 'e@topic-send.test');

    expect(await count(p, null)).toBe(3);
    expect(await count(p, digest)).toBe(1);
    expect(await count(p, news)).toBe(2);
    // Transactional mail ignores the subscription and the topic.
    expect(await count(p, digest, 'TRANSACTIONAL')).toBe(5);

    const toDigest = await campaign(p, d, digest);
    const toNews = await campaign(p, d, news);
    for (const id of [toDigest, toNews]) {
      expect((await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey })).status).toBe(200);
      await runFanout(h.deps, id);
    }
    expect(await statuses(toDigest)).toEqual([{ to_email: 'a@topic-send.test', status: 'PENDING', topic_id: digest }]);
    expect(await statuses(toNews)).toEqual([
      { to_email: 'a@topic-send.test', status: 'PENDING', topic_id: news },
      { to_email: 'e@topic-send.test', status: 'PENDING', topic_id: news },
    ]);

    // e leaves News after its mail was queued: at sending, it is not mailed.
    const left = await h.request('PUT', `/contacts/${late}/topics`, {
      key: p.secretKey,
      body: { topics: { News: false } },
    });
    expect(left.status).toBe(200);
    worker = await startWorker(h.deps, 2);
    await eventually(
      async () => (await statuses(toNews)).every((r) => r.status !== 'PENDING' && r.status !== 'SENDING') || undefined,
      30_000,
      'the News mails settled',
    );
    await eventually(
      async () => (await statuses(toDigest))[0].status !== 'PENDING' || undefined,
      30_000,
      'digest sent',
    );
    expect((await statuses(toNews)).map((r) => [r.to_email, r.status])).toEqual([
      ['a@topic-send.test', 'DELIVERED'],
      ['e@topic-send.test', 'SUPPRESSED'],
    ]);
    const got = sink.messages.filter((m) => m.to[0].endsWith('@topic-send.test')).map((m) => m.to[0]);
    expect(got.sort()).toEqual(['a@topic-send.test', 'a@topic-send.test']);
  });

  it('refuses a topic of another project, and a topic in use cannot be deleted', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    const other = await createProject(h);
    const theirs = await topic(other, 'Theirs', 'opt-in');
    const refused = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: 'X', subject: 'S', body: '<p>B</p>', from: `news@${d.domain}`, topicId: theirs },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.errors).toEqual([
      expect.objectContaining({ field: 'topicId', message: 'No topic with this id in the project' }),
    ]);
    expect((await h.sql('select 1 from campaigns where project_id = $1', [p.id])).length).toBe(0);

    const ours = await topic(p, 'Ours', 'opt-out');
    const id = await campaign(p, d, ours);
    const del = await h.request('DELETE', `/topics/${ours}`, { key: p.secretKey });
    expect(del.status).toBe(409);
    expect(del.body.error.message).toBe('The topic is used by the campaign "To ' + ours + '"');
    expect((await h.request('DELETE', `/campaigns/${id}`, { key: p.secretKey })).status).toBe(204);
    expect((await h.request('DELETE', `/topics/${ours}`, { key: p.secretKey })).status).toBe(204);
  });
});
