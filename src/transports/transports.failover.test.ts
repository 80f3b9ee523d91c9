import { randomUUID } from 'node:crypto';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually, runJobsNow, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { freePort } from '../lib/net.js';
import { claimForDelivery, markHandOff } from '../emails/delivery/outcomes.js';
import { Breakers, DEFAULT_BREAKER } from './breaker.js';
import { transportRegistry } from './registry.js';

/** An SMTP server that can be taken down: while down it answers every connection 421 (RFC 5321 §4.2.3). */
async function switchableSink() {
  const received: string[] = [];
  let down = false;
  let throttle = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, cb) {
      if (!down) return cb();
      cb(Object.assign(new Error('4.3.2 Service not available, closing transmission channel'), { responseCode: 421 }));
    },
    onRcptTo(address: SMTPServerAddress, _s, cb) {
      if (throttle > 0) {
        throttle--;
        return cb(Object.assign(new Error('4.7.0 Too many messages, slow down'), { responseCode: 451 }));
      }
      if (address.address.startsWith('nobody')) {
        return cb(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
      }
      cb();
    },
    onData(stream, session, cb) {
      stream.resume();
      stream.on('end', () => {
        for (const r of session.envelope.rcptTo) received.push(r.address.toLowerCase());
        cb();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    setDown: (v: boolean) => void (down = v),
    /** The next `n` recipients are answered 451 "too many". */
    throttleNext: (n: number) => void (throttle = n),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

// Issue 37: project transports, routing rules, failover through a breaker shared in PostgreSQL.
describe('transports: routing and failover', () => {
  let h: Harness;
  let account: SmtpSink;
  let primary: Awaited<ReturnType<typeof switchableSink>>;
  let fallback: Awaited<ReturnType<typeof switchableSink>>;
  let p: TestProject;
  let d: TestDomain;

  beforeAll(async () => {
    account = await startSmtpSink();
    primary = await switchableSink();
    fallback = await switchableSink();
    h = await createHarness({
      env: {
        SMTP_URL: account.url,
        TRANSPORT_ALLOW_PRIVATE_ADDRESSES: 'true',
        TRANSPORT_BREAKER_FAILURES: '2',
        TRANSPORT_BREAKER_RETRY_SECONDS: '1',
      },
      worker: true,
    });
  });
  afterAll(async () => {
    await h?.worker?.stop(); // the one the hand-off test started
    await h?.close();
    await Promise.all([account?.close(), primary?.close(), fallback?.close()]);
  });

  /** A project with transports `urls` (by name) and `rules`; returns the transports' ids by name. */
  async function setUp(urls: Record<string, string>, rules: Array<{ match: object; transports: string[] }>) {
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
    const ids: Record<string, string> = {};
    for (const [name, url] of Object.entries(urls)) {
      ids[name] = randomUUID();
      await h.sql(`insert into transports (id, project_id, name, kind, settings) values ($1, $2, $3, 'smtp', $4)`, [
        ids[name],
        p.id,
        name,
        JSON.stringify({ url }),
      ]);
    }
    for (const [i, r] of rules.entries()) {
      await h.sql(
        `insert into transport_rules (id, project_id, position, match, transports) values ($1, $2, $3, $4, $5)`,
        [randomUUID(), p.id, i, JSON.stringify(r.match), r.transports.map((t) => ids[t] ?? t)],
      );
    }
    return ids;
  }

  const send = async (to: string) => {
    const r = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to, from: `hello@${d.domain}`, subject: 'Hi', body: '<p>Hello</p>' },
    });
    expect(r.status).toBe(200);
    return r.body.data.emails[0].email as string;
  };
  const emailRow = async (id: string) =>
    (await h.sql('select status, transport from emails where id = $1', [id]))[0] as {
      status: string;
      transport: string;
    };
  const health = async (id: string) => (await h.sql('select * from transport_health where transport = $1', [id]))[0];
  const settled = (id: string) =>
    eventually(
      async () => {
        const row = await emailRow(id);
        if (row.status === 'PENDING') await runJobsNow(h);
        return ['DELIVERED', 'BOUNCED', 'FAILED'].includes(row.status) ? row : undefined;
      },
      30_000,
      `email ${id} settled`,
    );

  it('sends through the fallback, once each, while the primary refuses connections, and opens its breaker', async () => {
    const closed = `smtp://127.0.0.1:${await freePort()}`; // nothing listens there
    const ids = await setUp({ primary: closed, fallback: fallback.url }, [
      { match: {}, transports: ['primary', 'fallback'] },
    ]);
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(await send(`refused-${i}@rcpt.test`));
    for (const id of sent) expect(await settled(id)).toEqual({ status: 'DELIVERED', transport: ids.fallback });
    for (let i = 0; i < 5; i++) expect(fallback.received.filter((r) => r === `refused-${i}@rcpt.test`)).toHaveLength(1);
    const shown = await h.request('GET', `/emails/${sent[0]}`, { key: p.secretKey });
    expect(shown.body.transport).toEqual({ id: ids.fallback, name: 'fallback' });
    const row = await health(ids.primary);
    expect(row).toMatchObject({ state: 'open', project_id: p.id });
    expect(row.last_error).toMatch(/ECONNREFUSED|connect/i);
    // The owner heard of it.
    const told = await eventually(async () => account.messages.find((m) => /is failing/.test(m.parsed.subject ?? '')));
    expect(told.parsed.subject).toBe(`Transport "primary" is failing in ${p.name}`);
    expect(told.to).toEqual([p.owner.email]);
  });

  it('probes a recovered primary after the back-off and sends to it again', async () => {
    primary.setDown(true);
    const ids = await setUp({ primary: primary.url, fallback: fallback.url }, [
      { match: {}, transports: ['primary', 'fallback'] },
    ]);
    for (let i = 0; i < 3; i++) {
      expect(await settled(await send(`down-${i}@rcpt.test`))).toMatchObject({ transport: ids.fallback });
    }
    expect(await health(ids.primary)).toMatchObject({ state: 'open' });
    expect(primary.received.filter((r) => r.startsWith('down-'))).toEqual([]);

    primary.setDown(false);
    // Once the back-off (1 s here) is over, one mail probes the primary and closes the breaker.
    const probed = await eventually(
      async () => {
        const row = await settled(await send(`up-${randomUUID().slice(0, 6)}@rcpt.test`));
        return row.transport === ids.primary ? row : undefined;
      },
      20_000,
      'a mail through the recovered primary',
    );
    expect(probed.status).toBe('DELIVERED');
    expect(await health(ids.primary)).toMatchObject({ state: 'closed', failures: 0, openings: 0 });
    expect(await settled(await send('after@rcpt.test'))).toMatchObject({ transport: ids.primary });
    expect(primary.received).toContain('after@rcpt.test');
    await eventually(async () =>
      account.messages.find((m) => m.parsed.subject === `Transport "primary" works again in ${p.name}`),
    );
  });

  it('sends each stream through its own rule, and an unmatched mail through the instance transport', async () => {
    const ids = await setUp({ marketing: primary.url, transactional: fallback.url }, [
      { match: { stream: 'marketing' }, transports: ['marketing'] },
      { match: { stream: 'transactional', toDomain: 'tx.test' }, transports: ['transactional'] },
    ]);
    expect(await settled(await send('receipt@tx.test'))).toMatchObject({ transport: ids.transactional });
    expect(fallback.received).toContain('receipt@tx.test');
    const other = await send('other@elsewhere.test');
    expect(await settled(other)).toMatchObject({ transport: 'default' });
    const shown = await h.request('GET', `/emails/${other}`, { key: p.secretKey });
    expect(shown.body.transport).toEqual({ id: 'default', name: 'Instance default' });
    expect(account.to('other@elsewhere.test')).toHaveLength(1);

    await h.sql(`insert into contacts (id, project_id, email) values (gen_random_uuid(), $1, 'reader@news.test')`, [
      p.id,
    ]);
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: 'News', subject: 'News', body: '<p>News</p>', from: `news@${d.domain}` },
    });
    expect(c.status).toBe(201);
    expect((await h.request('POST', `/campaigns/${c.body.data.id}/send`, { key: p.secretKey })).status).toBe(200);
    await eventually(async () => primary.received.includes('reader@news.test'), 30_000, 'the campaign mail');
    const [row] = await h.sql(`select transport from emails where campaign_id = $1`, [c.body.data.id]);
    expect(row.transport).toBe(ids.marketing);
    expect(fallback.received).not.toContain('reader@news.test');
  });

  it('halves the rate of a transport that answers 451 "too many", and loses no mail', async () => {
    const ids = await setUp({ primary: primary.url, fallback: fallback.url }, [
      { match: {}, transports: ['primary', 'fallback'] },
    ]);
    await h.sql('update transports set max_per_second = 40 where id = $1', [ids.primary]);
    primary.throttleNext(1);
    const sent = [];
    for (let i = 0; i < 4; i++) sent.push(await send(`slow-${i}@rcpt.test`));
    for (const id of sent) expect(await settled(id)).toEqual({ status: 'DELIVERED', transport: ids.primary });
    for (let i = 0; i < 4; i++) expect(primary.received.filter((r) => r === `slow-${i}@rcpt.test`)).toHaveLength(1);
    expect(fallback.received.filter((r) => r.startsWith('slow-'))).toEqual([]);
    // Halved once, never failed over, breaker untouched.
    expect(
      transportRegistry(h.workerDeps ?? h.deps)
        .rateOf(ids.primary, 40)
        .current(),
    ).toBe(20);
    expect(await health(ids.primary)).toBeUndefined();
  });

  it("bounces a recipient's 5xx on its transport without failing over or counting against it", async () => {
    const ids = await setUp({ primary: primary.url, fallback: fallback.url }, [
      { match: {}, transports: ['primary', 'fallback'] },
    ]);
    expect(await settled(await send('nobody@rcpt.test'))).toEqual({ status: 'BOUNCED', transport: ids.primary });
    expect(fallback.received).not.toContain('nobody@rcpt.test');
    expect(await health(ids.primary)).toBeUndefined();
  });

  it('sends a mail handed to one transport by a run that died to that transport only', async () => {
    const ids = await setUp({ primary: primary.url, fallback: fallback.url }, [
      { match: {}, transports: ['fallback', 'primary'] },
    ]);
    // A mail queued, then a run that claimed it and wrote its hand-off mark naming the primary, and died.
    await h.worker?.stop();
    try {
      const id = await send('handed@rcpt.test');
      const c = await claimForDelivery(h.deps.db, id, randomUUID(), new Date());
      if (c.kind !== 'claimed') throw new Error('not claimed');
      expect(await markHandOff(h.deps.pool, c.claim, `<${id}@${d.domain}>`, ids.primary)).toBe(true);
      await h.sql(`update emails set status = 'PENDING' where id = $1`, [id]);
      h.worker = await restartWorker(h);
      expect(await settled(id)).toEqual({ status: 'DELIVERED', transport: ids.primary });
      expect(primary.received.filter((r) => r === 'handed@rcpt.test')).toHaveLength(1);
      expect(fallback.received).not.toContain('handed@rcpt.test');
    } finally {
      h.worker ??= await restartWorker(h);
    }
  });
});

// FALLBACK_TRANSPORTS: the instance's own way out when its transport fails, for every project.
describe('instance fallback transports', () => {
  let h: Harness;
  let backup: SmtpSink;
  beforeAll(async () => {
    backup = await startSmtpSink();
    h = await createHarness({
      env: {
        SMTP_URL: `smtp://127.0.0.1:${await freePort()}`, // nothing listens there
        FALLBACK_TRANSPORTS: backup.url,
        TRANSPORT_BREAKER_FAILURES: '2',
      },
      worker: true,
    });
  });
  afterAll(async () => {
    await h?.close();
    await backup?.close();
  });

  it('sends the mail of a project without rules through the fallback when the instance transport is down', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await h.request('POST', '/v1/send', {
        key: p.secretKey,
        body: { to: `backup-${i}@rcpt.test`, from: `hello@${d.domain}`, subject: 'Hi', body: '<p>Hello</p>' },
      });
      expect(r.status).toBe(200);
      ids.push(r.body.data.emails[0].email);
    }
    await backup.waitFor(3, 30_000);
    expect(backup.messages.map((m) => m.to[0]).sort()).toEqual([
      'backup-0@rcpt.test',
      'backup-1@rcpt.test',
      'backup-2@rcpt.test',
    ]);
    const rows = await eventually(async () => {
      const r = await h.sql(`select status, transport from emails where id = any($1)`, [ids]);
      return r.every((x) => x.status === 'DELIVERED') ? r : undefined;
    });
    expect(rows.map((r) => r.transport)).toEqual(['fallback-1', 'fallback-1', 'fallback-1']);
    expect((await h.request('GET', `/emails/${ids[0]}`, { key: p.secretKey })).body.transport).toEqual({
      id: 'fallback-1',
      name: 'Instance fallback 1',
    });
    const [health] = await h.sql(`select state, project_id from transport_health where transport = 'default'`);
    expect(health).toEqual({ state: 'open', project_id: null });

    // The dashboard's list names the fallback without its credentials, and rules may name it.
    const list = await h.request('GET', '/transports', { key: p.secretKey });
    expect(list.body.fallbacks).toEqual([
      {
        id: 'fallback-1',
        kind: 'smtp',
        description: `SMTP relay 127.0.0.1:${new URL(backup.url).port}`,
        health: expect.objectContaining({ state: 'closed' }),
      },
    ]);
    expect(list.body.default.health.state).toBe('open');
    const ok = await h.request('PUT', '/transports/rules', {
      key: p.secretKey,
      body: { rules: [{ match: { stream: 'marketing' }, transports: ['fallback-1', 'default'] }] },
    });
    expect(ok.status).toBe(200);
    const bad = await h.request('PUT', '/transports/rules', {
      key: p.secretKey,
      body: { rules: [{ match: {}, transports: ['fallback-2'] }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0].field).toBe('rules.0.transports.0');
  });
});

async function restartWorker(h: Harness) {
  const { startWorker } = await import('../worker/runner.js');
  return startWorker(h.workerDeps ?? h.deps);
}

// Two processes see one breaker: its state lives in PostgreSQL, not in either process.
describe('transport breakers shared between processes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  it('opens for every process, and lets exactly one of them probe after the back-off', async () => {
    let now = new Date('2026-11-29T10:00:00Z');
    const opts = { ...DEFAULT_BREAKER, threshold: 3, retryMs: 30_000, cacheMs: 0 };
    const a = new Breakers(h.deps.pool, () => now, opts);
    const b = new Breakers(h.deps.pool, () => now, opts);
    const key = randomUUID();
    expect(await a.failure(key, null, 'connection refused')).toBeNull();
    expect(await b.failure(key, null, 'connection refused')).toBeNull();
    expect(await a.admit(key)).toBe('send');
    const opened = await b.failure(key, null, 'connection refused');
    expect(opened).toMatchObject({ change: 'degraded', retryAt: new Date('2026-11-29T10:00:30Z') });
    expect([await a.admit(key), await b.admit(key)]).toEqual(['skip', 'skip']);

    now = new Date('2026-11-29T10:00:31Z');
    const both = await Promise.all([a.admit(key), b.admit(key)]);
    expect(both.sort()).toEqual(['probe', 'skip']);
    // The probe fails: open again, the back-off doubled.
    expect(await a.failure(key, null, 'still refused')).toBeNull();
    const [row] = await h.sql('select state, openings, retry_at from transport_health where transport = $1', [key]);
    expect(row).toMatchObject({ state: 'open', openings: 2, retry_at: new Date('2026-11-29T10:01:31Z') });

    now = new Date('2026-11-29T10:01:32Z');
    expect(await b.admit(key)).toBe('probe');
    expect(await b.success(key, null)).toMatchObject({ change: 'recovered' });
    expect(await a.admit(key)).toBe('send');
    // A success on a closed breaker with no failure writes nothing.
    expect(await a.success(key, null)).toBeNull();
  });
});
