import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { startWorker, type WorkerHandle } from '../worker/runner.js';
import { runFanout } from './fanout.js';

// A transactional mail queued behind a campaign's batches is sent before them: someone is waiting for
// it, nobody waits for the 300th newsletter.
describe('transactional mail ahead of bulk', () => {
  let h: Harness;
  let sink: SmtpSink;
  let worker: WorkerHandle | undefined;

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url + '?pool=1' } });
  });
  afterAll(async () => {
    await worker?.stop();
    await h?.close();
    await sink?.close();
  });

  it('sends a /v1/send queued after 300 campaign mails before any of them', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    await h.sql(
      `insert into contacts (id, project_id, email) select gen_random_uuid(), $1, 'bulk-' || i || '@rcpt.test' from generate_series(1, 300) i`,
      [p.id],
    );
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: 'News', subject: 'News', body: '<p>News</p>', from: `news@${d.domain}` },
    });
    expect((await h.request('POST', `/campaigns/${c.body.data.id}/send`, { key: p.secretKey })).status).toBe(200);
    // The campaign's rows and batch jobs exist, due now, before the transactional mail is asked for.
    await runFanout(h.deps, c.body.data.id);
    const [{ n }] = await h.sql(`select count(*)::int as n from ${JOBS} j
      where j.task_identifier = 'emails:send-batch'`);
    expect(n).toBe(6);
    const sent = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'urgent@rcpt.test', from: `hello@${d.domain}`, subject: 'Your code', body: '<p>123456</p>' },
    });
    expect(sent.status).toBe(200);

    // One job at a time over one SMTP connection: the order of arrival is the order the jobs ran.
    worker = await startWorker(h.deps, 1);
    // (The sink also gets the account's verification mail, queued at sign-up.)
    const ours = () => sink.messages.filter((m) => m.to[0].endsWith('@rcpt.test'));
    await eventually(async () => ours().length >= 301 || undefined, 60_000, 'all 301 mails');
    expect(ours()[0].to).toEqual(['urgent@rcpt.test']);
    expect(ours().filter((m) => m.to[0].startsWith('bulk-'))).toHaveLength(300);
  }, 90_000);
});
