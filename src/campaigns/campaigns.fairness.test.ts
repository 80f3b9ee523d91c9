import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { startWorker, type WorkerHandle } from '../worker/runner.js';
import { runFanout } from './fanout.js';

// Two tenants' campaigns share the workers: one that starts later is not stuck behind the other's
// whole audience; their batches alternate.
describe('fair share between campaigns', () => {
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

  async function campaign(tag: string, recipients: number) {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    await h.sql(
      `insert into contacts (id, project_id, email) select gen_random_uuid(), $1, $2 || '-' || i || '@rcpt.test' from generate_series(1, $3) i`,
      [p.id, tag, recipients],
    );
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: tag, subject: tag, body: `<p>${tag}</p>`, from: `news@${d.domain}` },
    });
    expect((await h.request('POST', `/campaigns/${c.body.data.id}/send`, { key: p.secretKey })).status).toBe(200);
    await runFanout(h.deps, c.body.data.id);
    return c.body.data.id as string;
  }

  it('sends a small campaign started second before the first, larger one is done', async () => {
    // Both are queued (every batch due now) before any is sent: A's 8 batches first, then B's 2.
    await campaign('big', 400);
    await campaign('small', 100);
    const priorities =
      await h.sql(`select j.priority, count(*)::int as n from ${JOBS} j where j.task_identifier = 'emails:send-batch'
      group by j.priority order by j.priority`);
    // Batch k of each campaign has priority k: two of each for 0 and 1, then A's alone.
    expect(priorities).toEqual([
      { priority: 0, n: 2 },
      { priority: 1, n: 2 },
      ...[2, 3, 4, 5, 6, 7].map((priority) => ({ priority, n: 1 })),
    ]);

    // One job at a time over one SMTP connection: the order of arrival is the order the jobs ran.
    worker = await startWorker(h.deps, 1);
    const ours = () => sink.messages.filter((m) => m.to[0].endsWith('@rcpt.test')).map((m) => m.to[0]);
    await eventually(async () => ours().length >= 500 || undefined, 90_000, 'all 500 mails');
    const order = ours();
    const lastSmall = order.findLastIndex((to) => to.startsWith('small-'));
    // Without the fair share, every 'big' mail (queued first) goes before the first 'small' one:
    // the last small mail would be number 500. With it, small's two batches run in the first four.
    expect(lastSmall).toBeLessThan(200);
    expect(order.filter((to) => to.startsWith('big-'))).toHaveLength(400);
    expect(new Set(order).size).toBe(500);
  }, 120_000);

  it('numbers batches across fan-out statements: 2,500 recipients in three statements get priorities 0 to 49 once each', async () => {
    await worker?.stop();
    worker = undefined;
    const id = await campaign('wide', 2500);
    const rows = await h.sql<{ priority: number }>(
      `select j.priority from ${JOBS} j where j.task_identifier = 'emails:send-batch'
        and exists (select 1 from emails e where e.campaign_id = $1 and e.id::text = (j.payload->'emailIds'->>0))
      order by j.priority`,
      [id],
    );
    expect(rows.map((r) => r.priority)).toEqual([...Array(50).keys()]);
  }, 60_000);
});
