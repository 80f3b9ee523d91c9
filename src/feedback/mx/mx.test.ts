import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { arf, dsn, qmailBounce } from '../../../test/reports.js';
import {
  createTemplate,
  createVerifiedDomain,
  eventually,
  rawHeader,
  type TestDomain,
} from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';
import { ConfigError, loadConfig } from '../../config.js';
import { loadTls } from '../../submission/tls.js';
import { startInboundServer, type InboundServer } from './server.js';
import { verpAddress, verpToken } from '../../emails/verp.js';

const BOUNCE_DOMAIN = 'bounces.pigeon.test';
// Suppression reasons are stored in the API's words.
const BOUNCE_REASON = 'bounce';
const COMPLAINT_REASON = 'complaint';

// Mail goes out through the SMTP sink with a VERP envelope sender; reports come back to the inbound
// server over real SMTP (nodemailer as the relay that sends them).
describe('bounces and complaints by mail', () => {
  let sink: SmtpSink;
  let h: Harness;
  let inbound: InboundServer;
  let p: TestProject;
  let d: TestDomain;
  let relay: ReturnType<typeof nodemailer.createTransport>;
  let n = 0;

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url, BOUNCE_DOMAIN, INBOUND_SMTP_PORT: '0' }, worker: true });
    inbound = await startInboundServer(h.deps, { port: 0, host: '127.0.0.1' });
    relay = nodemailer.createTransport({ host: '127.0.0.1', port: inbound.port, secure: false, ignoreTLS: true });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
  });
  afterAll(async () => {
    relay?.close();
    await inbound?.close();
    await h?.close();
    await sink?.close();
  });

  /** A subscribed contact of `project`, sent one mail through the sink; answers the mail's id and VERP address. */
  async function sent(project = p, domain = d) {
    const to = `rcpt-${++n}-${Date.now()}@rcpt.test`;
    await h.sql(`insert into contacts (id, project_id, email, subscribed) values (gen_random_uuid(), $1, $2, true)`, [
      project.id,
      to,
    ]);
    const res = await h.request('POST', '/v1/send', {
      key: project.secretKey,
      body: { to, from: `hello@${domain.domain}`, subject: 'Hi', body: '<p>Hi</p>' },
    });
    expect(res.status).toBe(200);
    const id = res.body.data.emails[0].email as string;
    const [mail] = await eventually(
      async () => (sink.to(to).length ? sink.to(to) : undefined),
      20_000,
      `mail to ${to}`,
    );
    await eventually(
      async () =>
        (await h.sql(`select 1 from emails where id = $1 and status not in ('PENDING', 'SENDING')`, [id])).length,
      20_000,
      'sent',
    );
    return { id, to, mail, verp: verpAddress(h.deps.secret, id, BOUNCE_DOMAIN), messageId: `<${id}@${domain.domain}>` };
  }
  /** Delivers `raw` to the inbound server; answers the server's reply to DATA. */
  const deliver = async (rcpt: string, raw: string) =>
    (await relay.sendMail({ envelope: { from: 'mailer-daemon@mx.rcpt.test', to: [rcpt] }, raw })).response;
  const email = async (id: string) =>
    (await h.sql('select status, error, bounced_at, complained_at from emails where id = $1', [id]))[0];
  const events = async (id: string) =>
    h.sql(
      `select name, data from events where email_id = $1 and name like 'email.%' and name not in ('email.sent', 'email.delivery') order by created_at, name`,
      [id],
    );
  const subscribed = async (projectId: string, to: string) =>
    (await h.sql('select subscribed from contacts where project_id = $1 and email = $2', [projectId, to]))[0]
      .subscribed;
  const suppression = async (projectId: string, to: string) =>
    (await h.sql('select reason from suppressions where project_id = $1 and email = $2', [projectId, to])).map(
      (r) => r.reason,
    );
  /** A MARKETING `/v1/send` to `to`: answers the new row's status. */
  async function marketing(to: string) {
    const template = await createTemplate(h, p.id, {
      subject: 'News',
      body: '<p>News</p>',
      from: `news@${d.domain}`,
      type: 'MARKETING',
    });
    const res = await h.request('POST', '/v1/send', { key: p.secretKey, body: { to, template } });
    expect(res.status).toBe(200);
    return (await email(res.body.data.emails[0].email)).status as string;
  }

  it('sends with the VERP address as envelope sender; From stays the sender', async () => {
    const s = await sent();
    expect(s.mail.from).toBe(s.verp);
    expect(s.verp).toBe(`bounces+${verpToken(h.deps.secret, s.id)}@${BOUNCE_DOMAIN}`);
    expect(s.mail.parsed.from?.value[0].address).toBe(`hello@${d.domain}`);
    expect(rawHeader(s.mail.raw, 'Message-ID')).toBe(s.messageId);
  });

  it('a permanent DSN bounces the mail, suppresses the address, and the next MARKETING send is SUPPRESSED', async () => {
    const s = await sent();
    expect(await marketing(s.to)).not.toBe('SUPPRESSED'); // eligible before the bounce
    const reply = await deliver(s.verp, dsn({ to: s.verp, recipient: s.to, originalMessageId: s.messageId }));
    expect(reply).toMatch(/^250 .*processed/);
    expect(await email(s.id)).toMatchObject({ status: 'BOUNCED', error: expect.stringContaining('5.1.1') });
    expect(await events(s.id)).toEqual([
      {
        name: 'email.bounce',
        data: expect.objectContaining({ bounceType: 'Permanent', diagnostic: expect.stringContaining('User unknown') }),
      },
    ]);
    expect(await suppression(p.id, s.to)).toEqual([BOUNCE_REASON]);
    expect(await subscribed(p.id, s.to)).toBe(false);
    expect(await marketing(s.to)).toBe('SUPPRESSED');

    // The relay sends the same DSN again (a lost reply): acknowledged, applied once.
    expect(
      await deliver(s.verp.toUpperCase(), dsn({ to: s.verp, recipient: s.to, originalMessageId: s.messageId })),
    ).toMatch(/^250 /);
    expect(await events(s.id)).toHaveLength(1);
  });

  it('a DSN returning a mail of several MB is applied from its head alone', async () => {
    const s = await sent();
    const big = dsn({ to: s.verp, recipient: s.to, originalMessageId: s.messageId, fullOriginal: true }).replace(
      'The original body.',
      `${'y'.repeat(76)}\r\n`.repeat((6 * 1024 * 1024) / 78),
    );
    expect(big.length).toBeGreaterThan(6 * 1024 * 1024);
    expect(await deliver(s.verp, big)).toMatch(/^250 .*processed/);
    expect(await email(s.id)).toMatchObject({ status: 'BOUNCED', error: expect.stringContaining('5.1.1') });
  });

  it('a transient DSN is an event only', async () => {
    const s = await sent();
    const before = (await email(s.id)).status;
    const reply = await deliver(
      s.verp,
      dsn({
        to: s.verp,
        recipient: s.to,
        action: 'delayed',
        status: '4.2.2',
        diagnostic: 'smtp; 452 4.2.2 Mailbox full',
        originalMessageId: s.messageId,
      }),
    );
    expect(reply).toMatch(/^250 /);
    expect((await email(s.id)).status).toBe(before);
    expect(await events(s.id)).toEqual([
      {
        name: 'email.bounce',
        data: expect.objectContaining({ bounceType: 'Transient', diagnostic: 'smtp; 452 4.2.2 Mailbox full' }),
      },
    ]);
    expect(await suppression(p.id, s.to)).toEqual([]);
    expect(await subscribed(p.id, s.to)).toBe(true);
    expect(await marketing(s.to)).not.toBe('SUPPRESSED');
  });

  it('an ARF abuse report marks the mail COMPLAINED, suppresses the address and unsubscribes the contact', async () => {
    const s = await sent();
    expect(await deliver(s.verp, arf({ to: s.verp, recipient: s.to, originalMessageId: s.messageId }))).toMatch(
      /^250 .*processed/,
    );
    expect((await email(s.id)).status).toBe('COMPLAINED');
    expect(await events(s.id)).toEqual([
      { name: 'email.complaint', data: expect.objectContaining({ feedbackType: 'abuse' }) },
    ]);
    expect(await suppression(p.id, s.to)).toEqual([COMPLAINT_REASON]);
    expect(await subscribed(p.id, s.to)).toBe(false);
    expect(await marketing(s.to)).toBe('SUPPRESSED');
  });

  it('a free-text bounce (qmail) without the original Message-ID bounces by the VERP token alone', async () => {
    const s = await sent();
    expect(
      await deliver(
        s.verp,
        qmailBounce({ to: s.verp, recipient: s.to, line: 'Sorry, no mailbox here by that name. (#5.1.1)' }),
      ),
    ).toMatch(/^250 /);
    expect((await email(s.id)).status).toBe('BOUNCED');
    expect(await suppression(p.id, s.to)).toEqual([BOUNCE_REASON]);
  });

  it('refuses forged tokens and other recipients with 550 at RCPT; nothing changes', async () => {
    const s = await sent();
    const token = verpToken(h.deps.secret, s.id);
    const forged = [
      `bounces+${token.slice(0, 30)}${token[30] === 'a' ? 'b' : 'a'}${token.slice(31)}@${BOUNCE_DOMAIN}`,
      `bounces+${verpToken('another-secret-another-secret-another-0123', s.id)}@${BOUNCE_DOMAIN}`,
      `bounces+${token}@elsewhere.test`,
      `postmaster@${BOUNCE_DOMAIN}`,
    ];
    for (const rcpt of forged) {
      const err = await deliver(rcpt, dsn({ to: rcpt, recipient: s.to, originalMessageId: s.messageId })).then(
        () => null,
        (e) => e,
      );
      expect(err, rcpt).toMatchObject({ responseCode: 550 });
      expect(String(err.response)).toContain('5.1.1');
    }
    expect((await email(s.id)).status).not.toBe('BOUNCED');
    expect(await events(s.id)).toEqual([]);
    expect(await suppression(p.id, s.to)).toEqual([]);
  });

  it("a DSN naming another project's mail changes neither mail", async () => {
    const other = await createProject(h);
    const od = await createVerifiedDomain(h, other.id);
    const theirs = await sent(other, od);
    const ours = await sent();
    // Sent to our VERP address, but about their Message-ID (and their recipient).
    expect(
      await deliver(ours.verp, dsn({ to: ours.verp, recipient: theirs.to, originalMessageId: theirs.messageId })),
    ).toMatch(/^250 .*mismatched/);
    for (const [pid, s] of [
      [other.id, theirs],
      [p.id, ours],
    ] as const) {
      expect((await email(s.id)).status).not.toBe('BOUNCED');
      expect(await events(s.id)).toEqual([]);
      expect(await suppression(pid, s.to)).toEqual([]);
      expect(await subscribed(pid, s.to)).toBe(true);
    }
  });

  it('acknowledges a message that is no report (an out-of-office reply) and changes nothing', async () => {
    const s = await sent();
    const ooo = `From: Bob <${s.to}>\r\nTo: ${s.verp}\r\nSubject: Out of office: Hi\r\nAuto-Submitted: auto-replied\r\n\r\nBack on Monday.\r\n`;
    expect(await deliver(s.verp, ooo)).toMatch(/^250 .*ignored/);
    expect(await events(s.id)).toEqual([]);
  });

  it('answers 451 when the database fails, so the relay tries again later; nothing changes', async () => {
    const s = await sent();
    const failing = await startInboundServer(
      {
        ...h.deps,
        db: Object.assign(Object.create(h.deps.db) as typeof h.deps.db, {
          transaction: () => Promise.reject(new Error('connection lost')),
        }),
      },
      { port: 0, host: '127.0.0.1' },
    );
    const broken = nodemailer.createTransport({
      host: '127.0.0.1',
      port: failing.port,
      secure: false,
      ignoreTLS: true,
    });
    try {
      const err = await broken
        .sendMail({
          envelope: { from: 'mailer-daemon@mx.rcpt.test', to: [s.verp] },
          raw: dsn({ to: s.verp, recipient: s.to, originalMessageId: s.messageId }),
        })
        .then(
          () => null,
          (e) => e,
        );
      expect(err).toMatchObject({ responseCode: 451 });
    } finally {
      broken.close();
      await failing.close();
    }
    expect((await email(s.id)).status).not.toBe('BOUNCED');
    expect(await events(s.id)).toEqual([]);
  });

  it('offers STARTTLS with a certificate, so a relay that requires TLS delivers; without one it offers none', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pigeon-inbound-tls-'));
    const tls = await loadTls(
      loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://mx.pigeon.test' }),
      pino({ level: 'silent' }),
      'inbound',
    );
    const secured = await startInboundServer(h.deps, { port: 0, host: '127.0.0.1', tls });
    const strict = (port: number) =>
      nodemailer.createTransport({
        host: '127.0.0.1',
        port,
        secure: false,
        requireTLS: true,
        tls: { rejectUnauthorized: false },
      });
    const over = strict(secured.port);
    const plain = strict(inbound.port);
    try {
      const s = await sent();
      const info = await over.sendMail({
        envelope: { from: 'mailer-daemon@mx.rcpt.test', to: [s.verp] },
        raw: dsn({ to: s.verp, recipient: s.to, originalMessageId: s.messageId }),
      });
      expect(info.response).toMatch(/^250 .*processed/);
      expect((await email(s.id)).status).toBe('BOUNCED');
      // The server without a certificate does not offer STARTTLS: a relay that requires it gives up.
      const t = await sent();
      const err = await plain
        .sendMail({
          envelope: { from: 'mailer-daemon@mx.rcpt.test', to: [t.verp] },
          raw: dsn({ to: t.verp, recipient: t.to, originalMessageId: t.messageId }),
        })
        .then(
          () => null,
          (e) => e,
        );
      expect(String(err)).toMatch(/STARTTLS/);
      expect((await email(t.id)).status).not.toBe('BOUNCED');
    } finally {
      over.close();
      plain.close();
      await secured.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('INBOUND_SMTP_PORT requires BOUNCE_DOMAIN; BOUNCE_DOMAIN must be a domain', () => {
    expect(() => loadConfig({ INBOUND_SMTP_PORT: '25' })).toThrow(ConfigError);
    expect(() => loadConfig({ INBOUND_SMTP_PORT: '25' })).toThrow(/BOUNCE_DOMAIN/);
    expect(() => loadConfig({ BOUNCE_DOMAIN: 'not a domain' })).toThrow(/BOUNCE_DOMAIN/);
    expect(loadConfig({ BOUNCE_DOMAIN: 'Bounces.Example.com', INBOUND_SMTP_PORT: '2525' })).toMatchObject({
      BOUNCE_DOMAIN: 'bounces.example.com',
      INBOUND_SMTP_PORT: 2525,
    });
  });
});
