import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../../test/dns-server.js';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import {
  createVerifiedDomain,
  dkimResults,
  eventually,
  rawHeader,
  type TestDomain,
} from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { projectRateCheck } from '../http/rate-limit.js';
import { startSubmissionServer, type SubmissionServer } from './server.js';
import { loadTls } from './tls.js';

// The SMTP submission server with nodemailer as the client: mail submitted on the port is queued
// like /v1/send mail and leaves through the app's transport (the SMTP sink), DKIM-signed and tracked.
describe('SMTP submission server', () => {
  let h: Harness;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let p: TestProject;
  let d: TestDomain;
  let server: SubmissionServer;

  beforeAll(async () => {
    sink = await startSmtpSink();
    dns = await startDnsServer();
    h = await createHarness({
      env: { SMTP_URL: sink.url, DNS_SERVERS: dns.address, SMTP_SUBMISSION_PORT: '0' },
      worker: true,
    });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id, { dns });
    // No SMTP_TLS_CERT/KEY: a self-signed certificate made with openssl in the harness's DATA_DIR.
    const tls = await loadTls(h.deps.config, h.deps.log);
    server = await startSubmissionServer(h.deps, {
      tls,
      rateCheck: projectRateCheck(h.app, h.deps),
      port: 0,
      host: '127.0.0.1',
    });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await h?.close();
    await sink?.close();
    await dns?.close();
  });

  const client = (pass: string, extra: SMTPTransport.Options = {}, port = server.port) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      requireTLS: true,
      auth: { user: 'pigeon', pass },
      tls: { rejectUnauthorized: false },
      ...extra,
    });
  const rejection = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: Error & { responseCode?: number; response?: string }) => e,
    );
    expect(err, 'the submission should have been refused').toBeDefined();
    return err!;
  };

  it('offers STARTTLS with a self-signed certificate', () => {
    expect(server.tls).toBe('self-signed');
  });

  it('queues a submitted message like /v1/send: every envelope recipient, DKIM-signed, tracked, headers kept', async () => {
    const t = client(p.secretKey);
    const info = await t.sendMail({
      from: `Hello Team <hello@${d.domain}>`,
      to: 'Ann Example <ann-sub@example.test>',
      cc: 'cc-sub@example.test',
      bcc: 'bcc-sub@example.test',
      replyTo: `support@${d.domain}`,
      subject: 'Order {{ id }} shipped',
      html: '<p>Hi {{name}}, track it <a href="https://shop.example.org/track?o=1">here</a>.</p>',
      headers: { 'X-Order': '1234', 'In-Reply-To': '<order-1234@shop.example.org>' },
      attachments: [{ filename: 'invoice.txt', content: 'invoice body', contentType: 'text/plain' }],
    });
    t.close();
    expect(info.response).toMatch(/^250 /);
    expect(info.accepted.sort()).toEqual(['ann-sub@example.test', 'bcc-sub@example.test', 'cc-sub@example.test']);

    // Committed before the 250: the rows are there as soon as the client has its answer.
    const rows = await h.sql(
      `select id, to_email, to_name, from_email, from_name, reply_to, headers, source_type from emails where project_id = $1 and to_email like '%-sub@example.test' order by to_email`,
      [p.id],
    );
    expect(rows.map((r) => [r.to_email, r.to_name])).toEqual([
      ['ann-sub@example.test', 'Ann Example'],
      ['bcc-sub@example.test', null],
      ['cc-sub@example.test', null],
    ]);
    expect(rows[0]).toMatchObject({
      from_email: `hello@${d.domain}`,
      from_name: 'Hello Team',
      reply_to: `support@${d.domain}`,
      source_type: 'TRANSACTIONAL',
    });
    expect(rows[0].headers).toMatchObject({ 'X-Order': '1234', 'In-Reply-To': '<order-1234@shop.example.org>' });
    expect(Object.keys(rows[0].headers).map((k) => k.toLowerCase())).not.toContain('received');
    const contacts = await h.sql(
      `select email from contacts where project_id = $1 and email like '%-sub@example.test' order by email`,
      [p.id],
    );
    expect(contacts.map((c) => c.email)).toEqual([
      'ann-sub@example.test',
      'bcc-sub@example.test',
      'cc-sub@example.test',
    ]);

    await eventually(
      async () =>
        sink.to('bcc-sub@example.test').length > 0 &&
        sink.to('ann-sub@example.test').length > 0 &&
        sink.to('cc-sub@example.test').length > 0,
      30_000,
      'three deliveries',
    );
    const mail = sink.to('ann-sub@example.test')[0];
    expect(await dkimResults(mail.raw, dns)).toEqual([{ result: 'pass', domain: d.domain }]);
    // The submitted text is sent as written, not read as a template.
    expect(mail.parsed.subject).toBe('Order {{ id }} shipped');
    const html = String(mail.parsed.html);
    expect(html).toContain('Hi {{name}}, track it');
    expect(html).toContain(`${h.url}/t/c/`);
    expect(html).not.toContain('href="https://shop.example.org/track?o=1"');
    expect(html).toMatch(new RegExp(`src="${h.url}/t/o/`));
    expect(rawHeader(mail.raw, 'X-Order')).toBe('1234');
    expect(rawHeader(mail.raw, 'In-Reply-To')).toBe('<order-1234@shop.example.org>');
    expect(mail.parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([
      ['invoice.txt', 'invoice body'],
    ]);
    // Bcc stays out of every header.
    expect(mail.raw.toString()).not.toContain('bcc-sub@example.test');
  }, 60_000);

  it('535 for a wrong secret key, and for the public key', async () => {
    for (const pass of ['sk_wrong', p.publicKey]) {
      const t = client(pass);
      const err = await rejection(
        t.sendMail({ from: `hello@${d.domain}`, to: 'x@example.test', subject: 's', text: 't' }),
      );
      t.close();
      expect(err.responseCode).toBe(535);
    }
  });

  it('takes a scoped key holding "send" as the password, and refuses one without it (535 naming the scope)', async () => {
    const mint = async (scopes: string[]) => {
      const res = await h.request('POST', `/projects/${p.id}/api-keys`, {
        cookie: p.owner.cookie,
        body: { name: `smtp ${scopes.join(' ')}`, scopes },
      });
      expect(res.status, res.text).toBe(201);
      return res.body.key as string;
    };
    const good = client(await mint(['send']));
    const info = await good.sendMail({
      from: `hello@${d.domain}`,
      to: 'scoped-smtp@example.test',
      subject: 'Scoped',
      text: 'via a scoped key',
    });
    good.close();
    expect(info.response).toMatch(/^250/);
    const bad = client(await mint(['track']));
    const err = await rejection(
      bad.sendMail({ from: `hello@${d.domain}`, to: 'x@example.test', subject: 's', text: 't' }),
    );
    bad.close();
    expect(err.responseCode).toBe(535);
    expect(err.response).toContain('lacks the "send" scope');
  });

  it('refuses AUTH before STARTTLS', async () => {
    const t = client(p.secretKey, { requireTLS: false, ignoreTLS: true });
    const err = await rejection(
      t.sendMail({ from: `hello@${d.domain}`, to: 'x@example.test', subject: 's', text: 't' }),
    );
    t.close();
    expect(err.responseCode).toBe(538);
  });

  it('550 5.7.1 with the reason for a From on an unverified domain; nothing stored', async () => {
    const t = client(p.secretKey);
    const err = await rejection(
      t.sendMail({
        from: 'someone@unverified.example.test',
        to: 'unverified-rcpt@example.test',
        subject: 's',
        text: 't',
      }),
    );
    t.close();
    expect(err.responseCode).toBe(550);
    expect(err.response).toMatch(
      /^550 5\.7\.1 The domain unverified\.example\.test of someone@unverified\.example\.test is not verified/,
    );
    expect(await h.sql(`select 1 from emails where to_email = 'unverified-rcpt@example.test'`)).toEqual([]);
    expect(await h.sql(`select 1 from contacts where email = 'unverified-rcpt@example.test'`)).toEqual([]);
  });

  it('a message submitted again with the same Message-ID (a replay after a crash) is answered 250 and sent once', async () => {
    const message = {
      from: `hello@${d.domain}`,
      to: 'replay@example.test',
      subject: 'Once',
      text: 'Only once',
      messageId: `<replay-${Date.now()}@client.example.test>`,
    };
    const first = client(p.secretKey);
    expect((await first.sendMail(message)).response).toMatch(/^250 /);
    first.close();
    // A second connection, as a client does after its first one died before it read the 250.
    const second = client(p.secretKey);
    const again = await second.sendMail(message);
    second.close();
    expect(again.response).toMatch(/^250 2\.0\.0 Already queued/);
    const rows = await h.sql(`select id, status from emails where to_email = 'replay@example.test'`);
    expect(rows).toHaveLength(1);
    await eventually(
      async () => (await h.sql(`select 1 from emails where id = $1 and status <> 'PENDING'`, [rows[0].id])).length > 0,
      30_000,
      'the delivery',
    );
    expect(sink.to('replay@example.test')).toHaveLength(1);
    expect(
      await h.sql(`select status_code, method from idempotency_keys where project_id = $1 and key = $2`, [
        p.id,
        message.messageId,
      ]),
    ).toEqual([{ status_code: 250, method: 'SMTP' }]);

    // Two submissions at the same instant: the claim in the send transaction lets one through.
    const both = { ...message, to: 'replay-race@example.test', messageId: `<race-${Date.now()}@client.example.test>` };
    const [a, b] = [client(p.secretKey), client(p.secretKey)];
    const answers = await Promise.all([a.sendMail(both), b.sendMail(both)]);
    a.close();
    b.close();
    expect(answers.map((r) => r.response.slice(0, 3))).toEqual(['250', '250']);
    expect(await h.sql(`select 1 from emails where to_email = 'replay-race@example.test'`)).toHaveLength(1);
  }, 60_000);

  it('counts each message against the project rate limit, on the counter of its API requests', async () => {
    const remaining = async () =>
      Number((await h.request('GET', '/contacts?limit=1', { key: p.secretKey })).headers.get('ratelimit-remaining'));
    const before = await remaining();
    const t = client(p.secretKey);
    await t.sendMail({ from: `hello@${d.domain}`, to: 'counted@example.test', subject: 's', text: 't' });
    t.close();
    // One for the message, one for the second GET.
    expect(await remaining()).toBe(before - 2);
  });

  it('552 5.3.4 for attachments over the 10 MB of /v1/send; nothing stored', async () => {
    const t = client(p.secretKey);
    const err = await rejection(
      t.sendMail({
        from: `hello@${d.domain}`,
        to: 'big@example.test',
        subject: 'Big',
        text: 't',
        attachments: [{ filename: 'big.bin', content: Buffer.alloc(10 * 1024 * 1024 + 1, 1) }],
      }),
    );
    t.close();
    expect(err.response).toMatch(/^552 5\.3\.4 attachments: Attachments total 10485761 bytes/);
    expect(await h.sql(`select 1 from emails where to_email = 'big@example.test'`)).toEqual([]);
  }, 60_000);

  it('maps the billing cap and the rate limit to SMTP replies', async () => {
    const q = await createProject(h);
    const e = await createVerifiedDomain(h, q.id, { dns });
    const mail = (to: string | string[]) => ({ from: `hello@${e.domain}`, to, subject: 's', text: 't' });
    await h.sql(
      `update projects set billing_limits = jsonb_set(billing_limits, '{transactional}', '1') where id = $1`,
      [q.id],
    );
    const t = client(q.secretKey);
    // More recipients than the whole monthly cap: permanent.
    const tooMany = await rejection(t.sendMail(mail(['cap1@example.test', 'cap2@example.test'])));
    expect(tooMany.response).toMatch(/^552 5\.3\.4 Monthly transactional limit/);
    expect((await t.sendMail(mail('cap1@example.test'))).response).toMatch(/^250 /);
    // The cap is reached: transient (next month, or a raised limit).
    const full = await rejection(t.sendMail(mail('cap2@example.test')));
    expect(full.response).toMatch(/^452 4\.3\.1 Monthly transactional limit/);
    t.close();

    const limited = await startSubmissionServer(h.deps, {
      tls: await loadTls(h.deps.config, h.deps.log),
      port: 0,
      host: '127.0.0.1',
      rateCheck: async () => ({ allowed: false, limit: 1000, retryAfterSeconds: 30 }),
    });
    try {
      const r = client(p.secretKey, {}, limited.port);
      const err = await rejection(r.sendMail(mail('rate@example.test')));
      r.close();
      expect(err.response).toMatch(/^451 4\.7\.1 Rate limit of 1000 requests per minute exceeded/);
    } finally {
      await limited.close();
    }
  }, 60_000);
});
