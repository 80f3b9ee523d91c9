import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { HandOffPool } from '../emails/delivery/handoff-pool.js';
import { startWorker, type WorkerHandle } from '../worker/runner.js';
import { runFanout } from './fanout.js';

/** A gate the sink's RCPT replies wait on, to hold bulk sends (and the jobs running them) open. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

// Priority orders the queue but cannot free a slot: with every general job slot and the SMTP
// connections busy with slow bulk sends, a mail someone waits for still leaves at once.
describe('transactional mail while bulk mail holds every slot', () => {
  let h: Harness;
  let sink: SmtpSink;
  let worker: WorkerHandle | undefined;
  const slow = gate();

  beforeAll(async () => {
    sink = await startSmtpSink({
      onRcpt: (to) => (to.startsWith('slow-') ? slow.opened.then(() => undefined) : undefined),
    });
    // Two batch jobs at once, five mails each in flight: eleven connections leave one free.
    h = await createHarness({ env: { SMTP_URL: sink.url + '?pool=11' } });
  });
  afterAll(async () => {
    slow.open();
    await worker?.stop();
    await h?.close();
    await sink?.close();
  });

  it('delivers a /v1/send through an express slot while both general slots run stalled batches', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    await h.sql(
      `insert into contacts (id, project_id, email) select gen_random_uuid(), $1, 'slow-' || i || '@rcpt.test' from generate_series(1, 100) i`,
      [p.id],
    );
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: 'News', subject: 'News', body: '<p>News</p>', from: `news@${d.domain}` },
    });
    expect((await h.request('POST', `/campaigns/${c.body.data.id}/send`, { key: p.secretKey })).status).toBe(200);
    await runFanout(h.deps, c.body.data.id);

    worker = await startWorker(h.deps, 2);
    // Both batch jobs are running and stuck on their first RCPTs.
    await eventually(async () => sink.rcptAttempts.size >= 10 || undefined, 30_000, 'ten held RCPTs');
    const sent = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'urgent@rcpt.test', from: `hello@${d.domain}`, subject: 'Your code', body: '<p>123456</p>' },
    });
    expect(sent.status).toBe(200);
    await eventually(async () => sink.to('urgent@rcpt.test').length === 1 || undefined, 30_000, 'the urgent mail');
    // It arrived while the campaign was still held: no bulk mail has gone yet.
    expect(sink.messages.filter((m) => m.to[0].startsWith('slow-'))).toHaveLength(0);

    slow.open();
    await eventually(
      async () => sink.messages.filter((m) => m.to[0].startsWith('slow-')).length === 100 || undefined,
      60_000,
      'the campaign',
    );
  }, 120_000);

  it('gives a waiting urgent send the next free connection, ahead of bulk sends queued before it', async () => {
    const held = gate();
    const order: string[] = [];
    const local = await startSmtpSink({
      onRcpt: (to) => (to === 'first@rcpt.test' ? held.opened.then(() => undefined) : undefined),
    });
    const pool = new HandOffPool({ host: '127.0.0.1', port: local.port, secure: false, ignoreTLS: true }, undefined, 1);
    try {
      const raw = (to: string) => Buffer.from(`From: a@x.test\r\nTo: ${to}\r\nSubject: t\r\n\r\nhello\r\n`);
      const send = (to: string, urgent = false) =>
        pool
          .send({ from: 'a@x.test', to: [to] }, raw(to), async () => undefined, { urgent })
          .then(() => order.push(to));
      const first = send('first@rcpt.test');
      // Wait until the one connection is taken by the held send, then queue behind it.
      await eventually(async () => local.rcptAttempts.has('first@rcpt.test') || undefined, 10_000, 'first RCPT');
      const rest = [
        send('bulk-1@rcpt.test'),
        send('bulk-2@rcpt.test'),
        send('urgent-1@rcpt.test', true),
        send('bulk-3@rcpt.test'),
        send('urgent-2@rcpt.test', true),
      ];
      held.open();
      await Promise.all([first, ...rest]);
      expect(order).toEqual([
        'first@rcpt.test',
        'urgent-1@rcpt.test',
        'urgent-2@rcpt.test',
        'bulk-1@rcpt.test',
        'bulk-2@rcpt.test',
        'bulk-3@rcpt.test',
      ]);
    } finally {
      pool.close();
      await local.close();
    }
  });
});
