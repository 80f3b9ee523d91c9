import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import {
  createTemplate,
  createVerifiedDomain,
  eventually,
  rawHeader,
  type TestDomain,
} from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';
import { runFanout } from '../../campaigns/fanout.js';
import { deliverEmail } from './deliver.js';
import { MARKETING_SKIPPED } from '../eligibility.js';
import { claimBatch, claimForDelivery, markHandOff, markHandOffMany, markSent } from './outcomes.js';
import { smtpTransport } from './transport.js';

// The moment of sending: who holds a SENDING row (claim tokens), what happens to a row left by a run
// that died, and the marketing rule applied again when the mail is claimed.
describe('claiming an email for delivery', () => {
  let h: Harness;
  let sink: SmtpSink;
  let p: TestProject;
  let d: TestDomain;
  const attempt = { attempt: 1, maxAttempts: 3 };

  beforeAll(async () => {
    sink = await startSmtpSink();
    // No worker: the test runs each delivery itself, at the moment it chooses.
    h = await createHarness({ env: { SMTP_URL: sink.url } });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  const queue = async (to: string, body: Record<string, unknown> = {}) => {
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to, from: `hi@${d.domain}`, subject: 'Hello', body: '<p>Hi</p>', ...body },
    });
    expect(res.status).toBe(200);
    return res.body.data.emails[0].email as string;
  };
  const row = async (id: string) =>
    (await h.sql('select status, error, message_id, claim_token from emails where id = $1', [id]))[0];

  it('marks the hand-off of several held rows in one statement, and only the rows each token holds', async () => {
    const ids = [
      await queue('many-1@example.test'),
      await queue('many-2@example.test'),
      await queue('many-3@example.test'),
    ];
    const { claimed } = await claimBatch(h.deps.db, ids, '00000000-0000-4000-8000-0000000000c1', new Date());
    expect(claimed).toHaveLength(3);
    const [one, two, three] = claimed.map((c) => c.claim);
    // The third row is taken over by another run: the first run's mark of it must change nothing.
    const taken = await claimForDelivery(h.deps.db, three.emailId, '00000000-0000-4000-8000-0000000000c2', new Date());
    expect(taken).toMatchObject({ kind: 'claimed', retaken: true });
    const marked = await markHandOffMany(
      h.deps.pool,
      [one, two, three].map((claim) => ({ claim, messageId: `<${claim.emailId}@m>`, transport: 'default' })),
    );
    expect([...marked].sort()).toEqual([one.emailId, two.emailId].sort());
    expect((await row(one.emailId)).message_id).toBe(`<${one.emailId}@m>`);
    expect((await row(two.emailId)).message_id).toBe(`<${two.emailId}@m>`);
    expect((await row(three.emailId)).message_id).toBeNull();
    expect(await markHandOffMany(h.deps.pool, [])).toEqual(new Set());
  });

  it('lets only the latest claim mark the hand-off or record an outcome', async () => {
    const id = await queue('taken-over@example.test');
    const a = await claimForDelivery(h.deps.db, id, '00000000-0000-4000-8000-00000000000a', new Date());
    expect(a).toMatchObject({ kind: 'claimed', retaken: false, handedOff: false });
    // A second run takes the SENDING row over (the first one's worker was presumed dead).
    const b = await claimForDelivery(h.deps.db, id, '00000000-0000-4000-8000-00000000000b', new Date());
    expect(b).toMatchObject({ kind: 'claimed', retaken: true, handedOff: false });
    if (a.kind !== 'claimed' || b.kind !== 'claimed') throw new Error('not claimed');
    const client = await h.deps.pool.connect();
    try {
      expect(await markHandOff(client, a.claim, '<x@y>')).toBe(false);
      expect(await markHandOff(client, b.claim, '<x@y>')).toBe(true);
    } finally {
      client.release();
    }
    expect(await h.deps.db.transaction((tx) => markSent(tx, a.claim, '<x@y>', 'Hello', true, new Date(), p.id))).toBe(
      false,
    );
    expect((await row(id)).status).toBe('SENDING');
    expect(await h.deps.db.transaction((tx) => markSent(tx, b.claim, '<x@y>', 'Hello', true, new Date(), p.id))).toBe(
      true,
    );
    expect((await row(id)).status).toBe('DELIVERED');
    // A replayed job finds nothing to do.
    expect(await claimForDelivery(h.deps.db, id, '00000000-0000-4000-8000-00000000000c', new Date())).toEqual({
      kind: 'none',
    });
  });

  it('never writes the final dot when the hand-off hook fails, and the next send still goes out', async () => {
    const t = smtpTransport(sink.url);
    const before = sink.messages.length;
    try {
      const message = { from: `hi@${d.domain}`, to: 'dot@example.test', subject: 'Cut', text: 'never delivered' };
      await expect(t.send(message, { beforeHandOff: () => Promise.reject(new Error('claim lost')) })).rejects.toThrow(
        /claim lost/,
      );
      // The server saw the connection close in the middle of that message's DATA: it never got the dot.
      await eventually(
        async () => sink.cut.some((c) => c.to.includes('dot@example.test')),
        10_000,
        'the cut DATA seen by the server',
      );
      expect(sink.messages.length).toBe(before);
      const ok = await t.send(
        { ...message, subject: 'Whole', text: 'delivered' },
        { beforeHandOff: async () => undefined },
      );
      expect(ok.delivered).toBe(true);
      const got = await sink.waitFor(before + 1);
      expect(got.slice(before).map((m) => m.parsed.subject)).toEqual(['Whole']);
    } finally {
      await t.close();
    }
  });

  it('sends again, with the same Message-ID, a row whose run died after the hand-off mark', async () => {
    const id = await queue('died@example.test');
    // The dead run: claimed and marked, then nothing (killed before or after the dot: nobody knows).
    const dead = await claimForDelivery(h.deps.db, id, '00000000-0000-4000-8000-0000000000dd', new Date());
    if (dead.kind !== 'claimed') throw new Error('not claimed');
    const client = await h.deps.pool.connect();
    await markHandOff(client, dead.claim, `<${id}@${d.domain}>`).finally(() => client.release());
    const before = sink.to('died@example.test').length;
    await deliverEmail(h.deps, id, attempt);
    const got = await sink.waitFor(1).then(() => sink.to('died@example.test'));
    expect(got.length).toBe(before + 1);
    expect(rawHeader(got.at(-1)!.raw, 'Message-ID')).toBe(`<${id}@${d.domain}>`);
    expect(await row(id)).toMatchObject({ status: 'DELIVERED', message_id: `<${id}@${d.domain}>` });
  });

  it('suppresses marketing mail whose contact unsubscribed, was suppressed or snoozed after it was queued', async () => {
    const tpl = await createTemplate(h, p.id, {
      subject: 'News',
      body: '<p>News</p>',
      from: `news@${d.domain}`,
      type: 'MARKETING',
    });
    const ids: Record<string, string> = {};
    for (const who of ['unsub', 'suppressed', 'snoozed', 'still-in']) {
      ids[who] = await queue(`${who}@example.test`, {
        template: tpl,
        subscribed: true,
        subject: undefined,
        body: undefined,
        from: undefined,
      });
      expect((await row(ids[who])).status).toBe('PENDING');
    }
    await h.sql(`update contacts set subscribed = false where project_id = $1 and email = 'unsub@example.test'`, [
      p.id,
    ]);
    await h.sql(
      `insert into suppressions (project_id, email, reason) values ($1, 'suppressed@example.test', 'manual')`,
      [p.id],
    );
    await h.sql(
      `update contacts set snoozed_until = now() + interval '1 day' where project_id = $1 and email = 'snoozed@example.test'`,
      [p.id],
    );
    for (const id of Object.values(ids)) await deliverEmail(h.deps, id, attempt);
    for (const who of ['unsub', 'suppressed', 'snoozed']) {
      expect(await row(ids[who])).toMatchObject({ status: 'SUPPRESSED', error: MARKETING_SKIPPED, claim_token: null });
      expect(sink.to(`${who}@example.test`)).toEqual([]);
    }
    expect((await row(ids['still-in'])).status).toBe('DELIVERED');
    expect(sink.to('still-in@example.test')).toHaveLength(1);
  });

  it('skips a campaign recipient who unsubscribed after the fan-out, and the campaign counts it as suppressed', async () => {
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed) select gen_random_uuid(), $1, 'late-' || i || '@example.test', true
      from generate_series(1, 3) i`,
      [p.id],
    );
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: {
        name: 'Late',
        subject: 'News',
        body: '<p>News</p>',
        from: `news@${d.domain}`,
        audienceType: 'FILTERED',
        audienceCondition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'late-' }] }],
        },
      },
    });
    expect(c.status).toBe(201);
    const id = c.body.data.id;
    expect((await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey })).status).toBe(200);
    await runFanout(h.deps, id);
    const rows = await h.sql<{ id: string }>(`select id from emails where campaign_id = $1 and status = 'PENDING'`, [
      id,
    ]);
    expect(rows).toHaveLength(3);
    await h.sql(`update contacts set subscribed = false where project_id = $1 and email = 'late-2@example.test'`, [
      p.id,
    ]);
    for (const r of rows) await deliverEmail(h.deps, r.id, attempt);
    expect(sink.to('late-2@example.test')).toEqual([]);
    expect(sink.to('late-1@example.test')).toHaveLength(1);
    const stats = await h.request('GET', `/campaigns/${id}/stats`, { key: p.secretKey });
    expect(stats.body).toMatchObject({ suppressedCount: 1, deliveredCount: 2, emails: 3 });
  });
});
