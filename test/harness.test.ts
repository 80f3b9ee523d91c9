import { promises as dns } from 'node:dns';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from './dns-server.js';
import { createProject } from './factories.js';
import { createHarness, type Harness } from './harness.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

describe('test harness', () => {
  let h: Harness;
  let sink: SmtpSink;
  let dnsServer: TestDnsServer;
  beforeAll(async () => {
    h = await createHarness();
    sink = await startSmtpSink({ onRcpt: (a) => (a.startsWith('nobody@') ? [550, 'No such user'] : undefined) });
    dnsServer = await startDnsServer({
      'example.test': { A: ['192.0.2.1'], TXT: ['x'.repeat(400)], MX: [{ exchange: 'mx.example.test', priority: 10 }] },
    });
  });
  afterAll(async () => {
    await h.close();
    await sink.close();
    await dnsServer.close();
  });

  it('serves the API on its own database and makes projects', async () => {
    const p = await createProject(h);
    expect(p.secretKey).toMatch(/^sk_/);
    const rows = await h.sql('select name from projects where id = $1', [p.id]);
    expect(rows).toEqual([{ name: 'Test project' }]);
  });

  it('has an SMTP sink that accepts and refuses', async () => {
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: sink.port, secure: false, ignoreTLS: true });
    await t.sendMail({ from: 'a@example.test', to: 'b@example.test', subject: 'Hi', html: '<p>Hello</p>' });
    const [m] = await sink.waitFor(1);
    expect(m.parsed.subject).toBe('Hi');
    await expect(
      t.sendMail({ from: 'a@example.test', to: 'nobody@example.test', subject: 'x', text: 'x' }),
    ).rejects.toMatchObject({ responseCode: 550 });
  });

  it('has a DNS server that answers A, MX, long TXT and NXDOMAIN', async () => {
    const r = new dns.Resolver({ timeout: 2000, tries: 1 });
    r.setServers([dnsServer.address]);
    expect(await r.resolve4('example.test')).toEqual(['192.0.2.1']);
    expect(await r.resolveMx('example.test')).toEqual([
      expect.objectContaining({ exchange: 'mx.example.test', priority: 10 }),
    ]);
    expect((await r.resolveTxt('example.test'))[0].join('')).toBe('x'.repeat(400));
    await expect(r.resolve4('nope.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
