import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { newId } from '../lib/ids.js';

// CSV import with topics (issue 35): a `topics` column of JSON choices and `topic:<topicId>` yes/no
// columns join and leave topics with consent source `import`; a bad topic cell is a row error.
describe('CSV import with topics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(async () => h.close());

  const setup = async () => {
    const p = await createProject(h);
    const topic = async (body: Record<string, unknown>) => {
      const res = await h.request('POST', '/topics', { key: p.secretKey, body });
      expect(res.status, res.text).toBe(201);
      return res.body as { id: string };
    };
    return {
      p,
      news: await topic({ name: 'News', default: 'opt-out' }),
      digest: await topic({ name: 'Digest', default: 'opt-in' }),
    };
  };

  const upload = (p: TestProject, csv: string, mapping?: Record<string, string>) => {
    const form = new FormData();
    if (mapping) form.append('mapping', JSON.stringify(mapping));
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
    return h.request('POST', '/contacts/import', { key: p.secretKey, body: form, raw: true });
  };
  const run = async (p: TestProject, csv: string, mapping?: Record<string, string>) => {
    const res = await upload(p, csv, mapping);
    expect(res.status, res.text).toBe(202);
    let body: { state: string; result: Record<string, unknown> & { errors: unknown[] }; failedReason: string | null };
    await expect
      .poll(
        async () => {
          body = (await h.request('GET', `/contacts/import/${res.body.jobId}`, { key: p.secretKey })).body;
          return body.state;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toMatch(/completed|failed/);
    return body!;
  };
  /** Each contact's membership by topic name, and its topic consent entries. */
  const membership = async (p: TestProject, email: string) => {
    const [c] = await h.sql('select id from contacts where project_id = $1 and email = $2', [p.id, email]);
    if (!c) return undefined;
    const topics = (await h.request('GET', `/contacts/${c.id}`, { key: p.secretKey })).body.topics as Array<{
      name: string;
      subscribed: boolean;
    }>;
    return Object.fromEntries(topics.map((t) => [t.name, t.subscribed]));
  };
  const consent = (p: TestProject, email: string) =>
    h.sql(
      `select ce.action, ce.topic_id, ce.source from consent_events ce join contacts c on c.id = ce.contact_id
      where c.project_id = $1 and c.email = $2 and ce.topic_id is not null order by ce.id`,
      [p.id, email],
    );
  const topicEvents = (p: TestProject, email: string) =>
    h.sql(
      `select e.name, e.data from events e join contacts c on c.id = e.contact_id
      where c.project_id = $1 and c.email = $2 and e.name like 'topic.%' order by e.id`,
      [p.id, email],
    );

  it('a `topics` column of JSON by id or name joins and leaves; an empty cell changes nothing', async () => {
    const { p, news, digest } = await setup();
    const hook = await h.request('POST', '/webhook-endpoints', {
      key: p.secretKey,
      body: { url: 'http://127.0.0.1:9/hook', events: ['topic.*'] },
    });
    expect(hook.status, hook.text).toBe(201);
    await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'old@import.test' } });
    const csv = [
      'email,prefs,name',
      `old@import.test,"{""digest"": true, ""${news.id}"": false}",Old`,
      'new@import.test,"{""News"": false}",New',
      'plain@import.test,,Plain',
      'empty@import.test,{},Empty',
    ].join('\n');
    const job = await run(p, csv, { prefs: 'topics' });
    expect(job.state).toBe('completed');
    expect(job.result).toMatchObject({ processed: 4, created: 3, updated: 1, failed: 0, errors: [] });
    expect(await membership(p, 'old@import.test')).toEqual({ Digest: true, News: false });
    expect(await membership(p, 'new@import.test')).toEqual({ Digest: false, News: false });
    expect(await membership(p, 'plain@import.test')).toEqual({ Digest: false, News: true });
    expect(await consent(p, 'old@import.test')).toEqual([
      { action: 'joined', topic_id: digest.id, source: 'import' },
      { action: 'left', topic_id: news.id, source: 'import' },
    ]);
    expect(await consent(p, 'new@import.test')).toEqual([{ action: 'left', topic_id: news.id, source: 'import' }]);
    expect(await consent(p, 'plain@import.test')).toEqual([]);
    expect(await consent(p, 'empty@import.test')).toEqual([]);
    expect(await topicEvents(p, 'old@import.test')).toEqual([
      { name: 'topic.joined', data: { topicId: digest.id, topicName: 'Digest' } },
      { name: 'topic.left', data: { topicId: news.id, topicName: 'News' } },
    ]);
    // The events reach event webhooks like any other: one delivery per change.
    expect(
      await h.sql(
        `select event_type, count(*)::int as n from webhook_deliveries where project_id = $1 group by 1 order by 1`,
        [p.id],
      ),
    ).toEqual([
      { event_type: 'topic.joined', n: 1 },
      { event_type: 'topic.left', n: 2 },
    ]);
    // The topics column is no data key.
    expect(
      await h.sql('select data from contacts where project_id = $1 and email = $2', [p.id, 'old@import.test']),
    ).toEqual([{ data: { name: 'Old' } }]);
  });

  it('`topic:<topicId>` columns take yes/no words; empty is no change; unsubscribed contacts keep their membership', async () => {
    const { p, news, digest } = await setup();
    const csv = [
      'email,subscribed,Wants digest,Wants news',
      'a@import.test,,yes,n',
      'b@import.test,false,1,',
      'c@import.test,,Y,TRUE',
      'd@import.test,,0,no',
      'e@import.test,,,',
    ].join('\n');
    const job = await run(p, csv, { 'Wants digest': `topic:${digest.id}`, 'Wants news': `topic:${news.id}` });
    expect(job.state).toBe('completed');
    expect(job.result).toMatchObject({ processed: 5, created: 5, failed: 0 });
    expect(await membership(p, 'a@import.test')).toEqual({ Digest: true, News: false });
    expect(await membership(p, 'b@import.test')).toEqual({ Digest: true, News: true });
    expect(
      await h.sql('select subscribed from contacts where project_id = $1 and email = $2', [p.id, 'b@import.test']),
    ).toEqual([{ subscribed: false }]);
    expect(await consent(p, 'b@import.test')).toEqual([{ action: 'joined', topic_id: digest.id, source: 'import' }]);
    expect(await membership(p, 'c@import.test')).toEqual({ Digest: true, News: true });
    // Joining an opt-out topic one is in already is no change, and records nothing.
    expect(await consent(p, 'c@import.test')).toEqual([{ action: 'joined', topic_id: digest.id, source: 'import' }]);
    expect(await membership(p, 'd@import.test')).toEqual({ Digest: false, News: false });
    expect(await consent(p, 'd@import.test')).toEqual([{ action: 'left', topic_id: news.id, source: 'import' }]);
    expect(await consent(p, 'e@import.test')).toEqual([]);
  });

  it('a bad topic cell is a row error: the row is not imported, the other rows are', async () => {
    const { p, digest } = await setup();
    const csv = [
      'email,topics,digest',
      'ok@import.test,"{""News"": false}",yes',
      'ghost@import.test,"{""Weekly"": true}",',
      'broken@import.test,{not json,',
      'notbool@import.test,"{""News"": ""yes""}",',
      'maybe@import.test,,perhaps',
      'ok2@import.test,,no',
    ].join('\n');
    const job = await run(p, csv, { topics: 'topics', digest: `topic:${digest.id}` });
    expect(job.state).toBe('completed');
    expect(job.result).toMatchObject({ processed: 6, created: 2, failed: 4 });
    expect(job.result.errors).toEqual([
      { row: 3, message: 'No topic "Weekly" in this project' },
      { row: 4, message: expect.stringContaining('Invalid topics value') },
      { row: 5, message: expect.stringContaining('Invalid topics value') },
      { row: 6, message: expect.stringContaining('"digest": perhaps') },
    ]);
    const emails = await h.sql('select email from contacts where project_id = $1 order by email', [p.id]);
    expect(emails.map((r) => r.email)).toEqual(['ok2@import.test', 'ok@import.test']);
    expect(await membership(p, 'ok@import.test')).toEqual({ Digest: true, News: false });
  });

  it('refuses a mapping to an unknown topic with 422 and queues nothing; files without topic columns are as before', async () => {
    const { p } = await setup();
    for (const target of [`topic:${newId()}`, 'topic:News', 'topic:']) {
      const res = await upload(p, 'email,t\na@import.test,yes\n', { t: target });
      expect(res.status, target).toBe(422);
      expect(res.body.error.errors[0].field).toBe('mapping');
    }
    expect(await h.sql('select 1 from background_jobs where project_id = $1', [p.id])).toEqual([]);
    // A header named "topics" is data unless the mapping says otherwise.
    const job = await run(p, 'email,topics\nd@import.test,"{""News"": false}"\n');
    expect(job.state).toBe('completed');
    expect(await h.sql('select data from contacts where project_id = $1', [p.id])).toEqual([
      { data: { topics: '{"News": false}' } },
    ]);
    expect(await consent(p, 'd@import.test')).toEqual([]);
  });
});
