import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';

// Campaign mail leaves in batch jobs (one claim, shared outcome writes); a recipient that fails
// temporarily is retried alone, and nobody else of its batch gets the mail twice.
describe('campaign delivery in batches', () => {
  let h: Harness;
  let sink: SmtpSink;

  beforeAll(async () => {
    sink = await startSmtpSink({
      onRcpt: (addr, attempt) => {
        if (addr === 'batch-7@rcpt.test' && attempt === 1) return [451, '4.3.0 Try again later'];
        if (addr === 'batch-9@rcpt.test') return [550, '5.1.1 No such user'];
        return undefined;
      },
    });
    h = await createHarness({ env: { SMTP_URL: sink.url + '?pool=4' }, worker: true });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  const batchJobs = async () => {
    const m = await h.deps.metrics.jobDuration.get();
    return (
      m.values.find(
        (v) =>
          v.metricName === 'pigeon_job_duration_seconds_count' &&
          v.labels.task === 'emails:send-batch' &&
          v.labels.outcome === 'success',
      )?.value ?? 0
    );
  };

  it('sends 120 recipients in 3 batch jobs, retries a 4xx alone, bounces a 5xx, sends nobody twice', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    await h.sql(
      `insert into contacts (id, project_id, email, data)
      select gen_random_uuid(), $1, 'batch-' || i || '@rcpt.test', jsonb_build_object('n', i) from generate_series(1, 120) i`,
      [p.id],
    );
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: 'Batch', subject: 'No. {{n}}', body: '<p>Hello {{n}}</p>', from: `news@${d.domain}` },
    });
    expect(c.status).toBe(201);
    const id = c.body.data.id;
    expect((await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey })).status).toBe(200);

    const final = await eventually(
      async () => {
        const r = await h.request('GET', `/campaigns/${id}`, { key: p.secretKey });
        return r.body.status === 'SENT' ? r.body : undefined;
      },
      60_000,
      'campaign SENT',
    );
    expect(final).toMatchObject({ totalRecipients: 120, sentCount: 119, deliveredCount: 119, bouncedCount: 1 });

    const mail = sink.messages.filter((m) => m.to[0].startsWith('batch-'));
    expect(mail).toHaveLength(119);
    expect(new Set(mail.map((m) => m.to[0])).size).toBe(119);
    expect(mail.find((m) => m.to[0] === 'batch-7@rcpt.test')?.parsed.subject).toBe('No. 7');
    // Each address was tried once, except the one that was deferred and then accepted.
    for (let i = 1; i <= 120; i++)
      expect([i, sink.rcptAttempts.get(`batch-${i}@rcpt.test`)]).toEqual([i, i === 7 ? 2 : 1]);

    const rows = await h.sql(
      `select to_email, status, attempts from emails where campaign_id = $1 and (attempts <> 1 or status <> 'DELIVERED') order by to_email`,
      [id],
    );
    expect(rows).toEqual([
      { to_email: 'batch-7@rcpt.test', status: 'DELIVERED', attempts: 2 },
      { to_email: 'batch-9@rcpt.test', status: 'BOUNCED', attempts: 1 },
    ]);
    // One email.sent and one email.delivery per delivered mail, written by the batches' outcome statements.
    const [ev] = await h.sql(
      `select count(*) filter (where name = 'email.sent')::int as sent, count(*) filter (where name = 'email.delivery')::int as delivery,
      count(*) filter (where name = 'email.bounce')::int as bounce from events where campaign_id = $1`,
      [id],
    );
    expect(ev).toEqual({ sent: 119, delivery: 119, bounce: 1 });
    expect(await batchJobs()).toBe(3);
  }, 90_000);
});
