import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../../test/dns-server.js';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, type TestDomain } from '../../test/sending-fixtures.js';
import { rawSmtp } from '../../test/smtp-client.js';
import { startSubmissionServer, SUBMISSION_MAX_BYTES, type SubmissionServer } from './server.js';

const plain = (key: string) => `AUTH PLAIN ${Buffer.from(`\0pigeon\0${key}`).toString('base64')}`;

/** Limits of the submission port (findings 7 and 8 of "Hardening II"): size, connections, failed AUTH. */
describe('SMTP submission server limits', () => {
  let h: Harness;
  let dns: TestDnsServer;
  let p: TestProject;
  let d: TestDomain;
  let server: SubmissionServer;

  beforeAll(async () => {
    dns = await startDnsServer();
    h = await createHarness({
      env: { DNS_SERVERS: dns.address, SMTP_SUBMISSION_PORT: '0', SMTP_SUBMISSION_ALLOW_INSECURE: 'true' },
    });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id, { dns });
    server = await startSubmissionServer(h.deps, {
      tls: null,
      rateCheck: null,
      port: 0,
      host: '127.0.0.1',
      limits: { perAddress: 3, authFailuresPerConnection: 3, authFailuresPerAddress: 5 },
    });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await h?.close();
    await dns?.close();
  });

  it('announces a SIZE computed from the send limits, well under the old 40 MB, and refuses more with 552', async () => {
    expect(SUBMISSION_MAX_BYTES).toBeLessThan(25 * 1024 * 1024);
    const c = rawSmtp(server.port);
    expect(await c.reply()).toMatch(/^220 /);
    expect(await c.command('EHLO app.test')).toContain(`SIZE ${SUBMISSION_MAX_BYTES}`);
    expect(await c.command(plain(p.secretKey))).toMatch(/^235 /);
    expect(await c.command(`MAIL FROM:<hello@${d.domain}> SIZE=${SUBMISSION_MAX_BYTES + 1}`)).toMatch(/^552 /);
    c.end();
    // Undeclared, the message is read and dropped, then refused; nothing is stored.
    const t = nodemailer.createTransport({
      host: '127.0.0.1',
      port: server.port,
      secure: false,
      ignoreTLS: true,
      auth: { user: 'pigeon', pass: p.secretKey },
    });
    const raw = Buffer.concat([
      Buffer.from(`From: hello@${d.domain}\r\nTo: huge@example.test\r\nSubject: Huge\r\n\r\n`),
      Buffer.alloc(SUBMISSION_MAX_BYTES + 1024, 'a\r\n'),
    ]);
    const err = await t.sendMail({ envelope: { from: `hello@${d.domain}`, to: ['huge@example.test'] }, raw }).then(
      () => null,
      (e) => e,
    );
    t.close();
    expect(err).toMatchObject({ responseCode: 552 });
    expect(await h.sql(`select 1 from emails where to_email = 'huge@example.test'`)).toEqual([]);
  }, 60_000);

  it('answers 421 past the connections of one address', async () => {
    const held = [rawSmtp(server.port), rawSmtp(server.port), rawSmtp(server.port)];
    for (const c of held) expect(await c.reply()).toMatch(/^220 /);
    const extra = rawSmtp(server.port);
    expect(await extra.reply()).toMatch(/^421 4\.7\.0 Too many connections/);
    for (const c of [...held, extra]) c.end();
    await Promise.all(held.map((c) => c.closed));
  });

  it('closes a connection after 3 failed AUTH, then refuses AUTH from the address with 454, even with the right key', async () => {
    const a = rawSmtp(server.port);
    expect(await a.reply()).toMatch(/^220 /);
    await a.command('EHLO app.test');
    for (let i = 0; i < 3; i++) expect(await a.command(plain(`sk_guess${i}`))).toMatch(/^535 /);
    expect(await a.reply()).toMatch(/^421 4\.7\.0 Too many failed authentications/);
    await a.closed;

    // Two more failures reach the address's 5; from then on every AUTH from it is 454.
    const b = rawSmtp(server.port);
    expect(await b.reply()).toMatch(/^220 /);
    await b.command('EHLO app.test');
    for (let i = 0; i < 2; i++) expect(await b.command(plain(`sk_guess-b${i}`))).toMatch(/^535 /);
    expect(await b.command(plain(p.secretKey))).toMatch(
      /^454 4\.7\.0 Too many failed authentications from your address/,
    );
    b.end();
  });
});
