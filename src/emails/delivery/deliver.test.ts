import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../../../test/dns-server.js';
import { createProject, type TestProject } from '../../../test/factories.js';
import { JOBS } from '../../../test/graphile-test.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import {
  createTemplate,
  createVerifiedDomain,
  dkimResults,
  eventually,
  rawHeader,
  runJobsNow,
  type TestDomain,
} from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';

// Delivery through a real SMTP server: MIME parts, DKIM, bounces, retries.
describe('email delivery over SMTP', () => {
  let h: Harness;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let p: TestProject;
  let d: TestDomain;

  beforeAll(async () => {
    sink = await startSmtpSink({
      onRcpt: (addr, attempt) => {
        if (addr.startsWith('nobody')) return [550, '5.1.1 No such user'];
        if (addr.startsWith('greylist') && attempt <= 2) return [451, '4.7.1 Greylisted, try again later'];
        if (addr.startsWith('down')) return [451, '4.3.0 Mailbox temporarily unavailable'];
        return undefined;
      },
    });
    dns = await startDnsServer();
    h = await createHarness({ env: { SMTP_URL: sink.url + '?pool=2', DNS_SERVERS: dns.address }, worker: true });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id, { dns });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
    await dns?.close();
  });

  const statusOf = async (id: string) => (await h.sql('select status from emails where id = $1', [id]))[0]?.status;
  const eventNames = async (emailId: string) =>
    (await h.sql('select name from events where email_id = $1 order by created_at, name', [emailId])).map(
      (r) => r.name,
    );

  it('delivers every part of an inline message, DKIM-signed with the domain key', async () => {
    const to = 'Ann.Reader@Example.test';
    const pdf = Buffer.from('%PDF-1.4 test document\n');
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: {
        to: { name: 'Ann Reader', email: to },
        from: { name: 'Shop Team', email: `hello@${d.domain}` },
        reply: `support@${d.domain}`,
        subject: 'Your order {{order}} 🎉',
        body: '<html><body><h1>Hi {{firstName ?? "there"}}</h1><p>Order {{order}} by {{contact.email}}</p><p>{{note}}</p></body></html>',
        data: { order: 'A-100', note: { value: '<b>fragile</b>', persistent: false } },
        headers: { 'X-Campaign-Ref': 'spring-2026' },
        attachments: [
          { filename: 'invoice.pdf', content: pdf.toString('base64'), contentType: 'application/pdf' },
          { filename: 'notes.txt', content: Buffer.from('hello').toString('base64') },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const [sent] = res.body.data.emails;
    expect(sent.contact.email).toBe('ann.reader@example.test');
    expect(Date.parse(res.body.data.timestamp)).not.toBeNaN();

    const m = await eventually(async () => sink.to('ann.reader@example.test')[0], 15_000, 'the mail');
    expect(m.parsed.from?.value[0]).toEqual({ name: 'Shop Team', address: `hello@${d.domain}` });
    expect(m.parsed.to && !Array.isArray(m.parsed.to) ? m.parsed.to.value[0] : null).toEqual({
      name: 'Ann Reader',
      address: 'ann.reader@example.test',
    });
    expect(m.parsed.replyTo?.value[0].address).toBe(`support@${d.domain}`);
    expect(m.parsed.subject).toBe('Your order A-100 🎉');
    expect(m.parsed.messageId).toBe(`<${sent.email}@${d.domain}>`);
    expect(m.parsed.html).toContain('<h1>Hi there</h1>');
    expect(m.parsed.html).toContain('Order A-100 by ann.reader@example.test');
    // Per-request values are HTML-escaped in the body.
    expect(m.parsed.html).toContain('&lt;b&gt;fragile&lt;/b&gt;');
    expect(m.parsed.text).toContain('Order A-100 by ann.reader@example.test');
    expect(m.parsed.headers.get('x-campaign-ref')).toBe('spring-2026');
    // Transactional mail carries no bulk headers.
    expect(m.parsed.headers.get('list-unsubscribe')).toBeUndefined();
    expect(m.parsed.attachments.map((a) => [a.filename, a.contentType, a.content.toString()])).toEqual([
      ['invoice.pdf', 'application/pdf', pdf.toString()],
      ['notes.txt', 'text/plain', 'hello'],
    ]);
    expect(await dkimResults(m.raw, dns)).toEqual([{ result: 'pass', domain: d.domain }]);

    await eventually(async () => (await statusOf(sent.email)) === 'DELIVERED', 5000, 'DELIVERED');
    expect(await eventNames(sent.email)).toEqual(['email.delivery', 'email.sent']);
    const [ev] = await h.sql(`select data from events where email_id = $1 and name = 'email.sent'`, [sent.email]);
    expect(ev.data).toEqual({
      emailId: sent.email,
      messageId: `<${sent.email}@${d.domain}>`,
      to: 'ann.reader@example.test',
      subject: 'Your order A-100 🎉',
      sourceType: 'TRANSACTIONAL',
    });
    // Persistent data is stored on the contact, the one-off value is not.
    const [c] = await h.sql('select data, subscribed from contacts where id = $1', [sent.contact.id]);
    expect(c).toEqual({ data: { order: 'A-100' }, subscribed: false });
  });

  it('a 550 on RCPT bounces: BOUNCED, contact unsubscribed and suppressed', async () => {
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed) values (gen_random_uuid(), $1, 'nobody@example.test', true) `,
      [p.id],
    );
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'nobody@example.test', from: `hello@${d.domain}`, subject: 'Hi', body: '<p>Hi</p>' },
    });
    expect(res.status).toBe(200);
    const id = res.body.data.emails[0].email;
    await eventually(async () => (await statusOf(id)) === 'BOUNCED', 15_000, 'BOUNCED');
    expect(sink.to('nobody@example.test')).toHaveLength(0);
    const [bounce] = await h.sql(`select data from events where email_id = $1 and name = 'email.bounce'`, [id]);
    expect(bounce.data).toMatchObject({ emailId: id, bounceType: 'Permanent', sourceType: 'TRANSACTIONAL' });
    expect(bounce.data.diagnostic).toContain('550');
    const [c] = await h.sql(
      `select id, subscribed from contacts where project_id = $1 and email = 'nobody@example.test'`,
      [p.id],
    );
    expect(c.subscribed).toBe(false);
    expect(
      await h.sql(`select name from events where contact_id = $1 and name = 'contact.unsubscribed'`, [c.id]),
    ).toHaveLength(1);
    expect(
      await h.sql(`select reason from suppressions where project_id = $1 and email = 'nobody@example.test'`, [p.id]),
    ).toEqual([{ reason: 'bounce' }]);
    // Later marketing mail to the suppressed address is skipped.
    const tpl = await createTemplate(h, p.id, {
      subject: 'News',
      body: '<p>News</p>',
      from: `news@${d.domain}`,
      type: 'MARKETING',
    });
    const again = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'nobody@example.test', template: tpl, subscribed: true },
    });
    expect(await statusOf(again.body.data.emails[0].email)).toBe('SUPPRESSED');
  });

  it('a 451 twice then acceptance delivers exactly one mail', async () => {
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'greylist@example.test', from: `hello@${d.domain}`, subject: 'Retry me', body: '<p>Hi</p>' },
    });
    const id = res.body.data.emails[0].email;
    for (let i = 0; i < 100 && (await statusOf(id)) !== 'DELIVERED'; i++) {
      await runJobsNow(h);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await statusOf(id)).toBe('DELIVERED');
    expect(sink.rcptAttempts.get('greylist@example.test')).toBe(3);
    expect(sink.to('greylist@example.test')).toHaveLength(1);
    const [row] = await h.sql('select attempts, error from emails where id = $1', [id]);
    expect(row).toEqual({ attempts: 3, error: null });
    expect(await eventNames(id)).toEqual(['email.delivery', 'email.sent']);
  });

  it('a 4xx on every attempt ends FAILED after the last one, with no mail', async () => {
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'down@example.test', from: `hello@${d.domain}`, subject: 'Never', body: '<p>x</p>' },
    });
    const id = res.body.data.emails[0].email;
    for (let i = 0; i < 150 && (await statusOf(id)) !== 'FAILED'; i++) {
      await runJobsNow(h);
      await new Promise((r) => setTimeout(r, 200));
    }
    const [row] = await h.sql('select status, attempts, error from emails where id = $1', [id]);
    expect(row.status).toBe('FAILED');
    expect(row.attempts).toBe(10);
    expect(row.error).toMatch(/^Gave up after 10 attempts: 451/);
    expect(sink.rcptAttempts.get('down@example.test')).toBe(10);
    expect(sink.to('down@example.test')).toHaveLength(0);
    expect(await eventNames(id)).toEqual([]);
  }, 60_000);

  it('a second run of the job sends nothing', async () => {
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'twice@example.test', from: `hello@${d.domain}`, subject: 'Once', body: '<p>Once</p>' },
    });
    const id = res.body.data.emails[0].email;
    await eventually(async () => (await statusOf(id)) === 'DELIVERED', 15_000, 'DELIVERED');
    await h.sql(`select graphile_worker.add_job('emails:send', json_build_object('emailId', $1::text))`, [id]);
    await h.sql(`select graphile_worker.add_job('emails:send', json_build_object('emailId', $1::text))`, [id]);
    await eventually(
      async () =>
        (await h.sql(`select count(*)::int as n from ${JOBS} j where task_identifier = 'emails:send'`))[0].n === 0,
      10_000,
      'jobs done',
    );
    expect(sink.to('twice@example.test')).toHaveLength(1);
    expect(await statusOf(id)).toBe('DELIVERED');
  });

  it('marketing template mail carries List-Unsubscribe one-click, Precedence and a footer', async () => {
    const tpl = await createTemplate(h, p.id, {
      subject: 'Hello {{firstName}}',
      body: '<html><body><p>Dear {{firstName}}, {{{promo}}}</p></body></html>',
      from: `news@${d.domain}`,
      fromName: 'The News',
      replyTo: `editor@${d.domain}`,
      type: 'MARKETING',
    });
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: {
        to: 'reader@example.test',
        template: tpl,
        subscribed: true,
        data: { firstName: 'Rae', promo: { value: '<em>20% off</em>', persistent: false } },
      },
    });
    expect(res.status).toBe(200);
    const m = await eventually(async () => sink.to('reader@example.test')[0], 15_000, 'the mail');
    expect(m.parsed.subject).toBe('Hello Rae');
    expect(m.parsed.from?.value[0]).toEqual({ name: 'The News', address: `news@${d.domain}` });
    expect(m.parsed.replyTo?.value[0].address).toBe(`editor@${d.domain}`);
    expect(m.parsed.html).toContain('Dear Rae, <em>20% off</em>');
    const lu = rawHeader(m.raw, 'List-Unsubscribe')!;
    expect(lu).toMatch(
      new RegExp(
        `^<${h.url}/unsubscribe/[^>]+>, <mailto:editor@${d.domain.replace(/\./g, '\\.')}\\?subject=unsubscribe>$`,
      ),
    );
    expect(rawHeader(m.raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(m.parsed.headers.get('precedence')).toBe('bulk');
    const unsubscribeUrl = /^<([^>]+)>/.exec(lu)![1];
    expect(m.parsed.html).toContain(`href="${unsubscribeUrl}"`);
    expect(await dkimResults(m.raw, dns)).toEqual([{ result: 'pass', domain: d.domain }]);

    // The one-click POST of RFC 8058 unsubscribes the contact.
    const one = await h.request('POST', unsubscribeUrl.slice(h.url.length), {
      raw: true,
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(one.status).toBe(200);
    const [c] = await h.sql(
      `select id, subscribed from contacts where project_id = $1 and email = 'reader@example.test'`,
      [p.id],
    );
    expect(c.subscribed).toBe(false);
    expect(
      (await h.sql(`select name from events where contact_id = $1 order by created_at`, [c.id])).map((r) => r.name),
    ).toContain('contact.unsubscribed');

    // The next marketing send to the unsubscribed contact is SUPPRESSED and sends nothing.
    const again = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'reader@example.test', template: tpl },
    });
    expect(again.status).toBe(200);
    expect(await statusOf(again.body.data.emails[0].email)).toBe('SUPPRESSED');
    // Transactional mail still goes.
    const tx = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'reader@example.test', from: `hello@${d.domain}`, subject: 'Receipt', body: '<p>Receipt</p>' },
    });
    await eventually(async () => (await statusOf(tx.body.data.emails[0].email)) === 'DELIVERED', 15_000, 'receipt');
    expect(sink.to('reader@example.test')).toHaveLength(2);
  });
});

describe('email delivery when the SMTP server is down', () => {
  it('retries a connection fault and delivers once the server is back', async () => {
    // A port with nothing listening yet.
    const probe = await startSmtpSink();
    const port = probe.port;
    await probe.close();
    const h = await createHarness({ env: { SMTP_URL: `smtp://127.0.0.1:${port}?pool=1` }, worker: true });
    let server: SMTPServer | undefined;
    try {
      const p = await createProject(h);
      const d = await createVerifiedDomain(h, p.id);
      const res = await h.request('POST', '/v1/send', {
        key: p.secretKey,
        body: { to: 'later@example.test', from: `hello@${d.domain}`, subject: 'Later', body: '<p>x</p>' },
      });
      const id = res.body.data.emails[0].email;
      const row = await eventually(
        async () =>
          (await h.sql('select status, attempts, error from emails where id = $1 and error is not null', [id]))[0],
        15_000,
        'first failure',
      );
      expect(row.status).toBe('PENDING');
      expect(row.attempts).toBe(1);

      const received: string[] = [];
      server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        onData(stream, session, cb) {
          stream.resume();
          stream.on('end', () => {
            received.push(session.envelope.rcptTo[0].address);
            cb();
          });
        },
      });
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
      for (let i = 0; i < 100 && !received.length; i++) {
        await runJobsNow(h);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(received).toEqual(['later@example.test']);
      await eventually(
        async () =>
          (await h.sql(`select 1 from emails where id = $1 and status = 'DELIVERED' and attempts = 2`, [id]))[0],
        5000,
        'DELIVERED',
      );
    } finally {
      await h.close();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    }
  }, 60_000);
});
