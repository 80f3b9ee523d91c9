import { execFile } from 'node:child_process';
import { authenticate } from 'mailauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../../../test/dns-server.js';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import {
  createTemplate,
  createVerifiedDomain,
  eventually,
  testResolver,
  type TestDomain,
} from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SinkMessage, type SmtpSink } from '../../../test/smtp-sink.js';

/** Debian's SpamAssassin (`apt-get install -y spamassassin`); SPAMASSASSIN_PATH overrides. */
const SPAMASSASSIN = process.env.SPAMASSASSIN_PATH ?? 'spamassassin';

/**
 * SpamAssassin's score of a raw message with local tests only (`-t -L`: no DNS blocklists, no
 * network), read from the `X-Spam-Status` header of its report.
 * @throws Error naming the install command when spamassassin is missing.
 */
function spamScore(raw: Buffer): Promise<{ score: number; tests: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      SPAMASSASSIN,
      ['-t', '-L'],
      { maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
      (err, stdout) => {
        if ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
          reject(
            new Error(
              `The spam-score tests need SpamAssassin: install it with "apt-get install -y spamassassin" (Debian) or set SPAMASSASSIN_PATH.`,
            ),
          );
          return;
        }
        // -t exits non-zero when the message scores as spam; the report is still on stdout.
        const status = /^X-Spam-Status: (.*(?:\r?\n[ \t].*)*)/m.exec(stdout)?.[1].replace(/\s+/g, ' ');
        const score = status ? /score=(-?[\d.]+)/.exec(status)?.[1] : undefined;
        if (score === undefined) {
          reject(
            new Error(
              `no X-Spam-Status in SpamAssassin's output (${err?.message ?? 'exit 0'}): ${stdout.slice(0, 500)}`,
            ),
          );
          return;
        }
        resolve({ score: Number(score), tests: /tests=(.*?)(?: autolearn=| version=|$)/.exec(status!)?.[1] ?? '' });
      },
    );
    child.stdin!.end(raw);
  });
}

/** mailauth's verdict and signed header list (`h=`, lower-cased) of each DKIM signature. */
async function dkimSignatures(raw: Buffer, dns: TestDnsServer) {
  const res = await authenticate(raw, {
    resolver: testResolver(dns) as never,
    ip: '127.0.0.1',
    helo: 'localhost',
    sender: 'bounce@example.test',
    mta: 'mx.example.test',
    disableArc: true,
    disableBimi: true,
    disableDmarc: true,
  } as never);
  return (res.dkim?.results ?? []).map(
    (r: { status: { result: string }; signingDomain: string; signingHeaders?: { keys: string } }) => ({
      result: r.status.result,
      domain: r.signingDomain,
      h: (r.signingHeaders?.keys ?? '')
        .toLowerCase()
        .split(':')
        .map((k) => k.trim()),
    }),
  );
}

// What receivers see of Pigeon's stock mail: DKIM covering the RFC 8058 headers, and a low spam score.
describe('deliverability of sent mail', () => {
  let h: Harness;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let p: TestProject;
  let d: TestDomain;

  beforeAll(async () => {
    sink = await startSmtpSink();
    dns = await startDnsServer();
    // A public URL like a deployment's: tracking and unsubscribe links on a host name, not 127.0.0.1.
    h = await createHarness({
      env: { SMTP_URL: sink.url, DNS_SERVERS: dns.address, PUBLIC_URL: 'https://pigeon.example.com' },
      worker: true,
    });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id, {
      dns,
      domain: `mail-${Math.random().toString(36).slice(2, 8)}.example.com`,
    });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
    await dns?.close();
  });

  const send = async (to: string, template: string, data?: Record<string, unknown>): Promise<SinkMessage> => {
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to, template, subscribed: true, data },
    });
    expect(res.status, res.text).toBe(200);
    return eventually(async () => sink.to(to)[0], 20_000, `the mail to ${to}`);
  };

  /** A short marketing mail (tracked links, open pixel, unsubscribe footer) and a short transactional one. */
  const stockMails = async () => {
    const news = await createTemplate(h, p.id, {
      subject: 'Our spring collection is here',
      from: `news@${d.domain}`,
      fromName: 'Acme News',
      replyTo: `editor@${d.domain}`,
      type: 'MARKETING',
      body:
        '<html><body><h1>Hello {{firstName}}</h1><p>The spring collection has arrived: light jackets, linen shirts and new colours for the season.</p>' +
        '<p><a href="https://shop.example.com/spring">See the collection</a></p><p>The Acme team</p></body></html>',
    });
    const reset = await createTemplate(h, p.id, {
      subject: 'Reset your password',
      from: `account@${d.domain}`,
      fromName: 'Acme',
      type: 'TRANSACTIONAL',
      body:
        '<html><body><p>Hi {{firstName}},</p><p>Someone asked to reset the password of your Acme account. Follow this link within an hour to choose a new one:</p>' +
        '<p><a href="https://shop.example.com/reset?t=abc123">Reset my password</a></p><p>If it was not you, ignore this message.</p></body></html>',
    });
    return {
      marketing: await send('rae@example.org', news, { firstName: 'Rae' }),
      transactional: await send('sam@example.org', reset, { firstName: 'Sam' }),
    };
  };
  let mails: Awaited<ReturnType<typeof stockMails>>;

  it('signs List-Unsubscribe and List-Unsubscribe-Post (RFC 8058) and Reply-To with DKIM, verified by mailauth', async () => {
    mails = await stockMails();
    const [sig] = await dkimSignatures(mails.marketing.raw, dns);
    expect(sig).toMatchObject({ result: 'pass', domain: d.domain });
    for (const k of [
      'from',
      'to',
      'subject',
      'date',
      'message-id',
      'reply-to',
      'list-unsubscribe',
      'list-unsubscribe-post',
    ])
      expect(sig.h).toContain(k);
    // mailauth's list is the message's own h= tag.
    const tag = /^DKIM-Signature:[^]*?\bh=([^;]+);/im
      .exec(mails.marketing.raw.toString('latin1'))![1]
      .replace(/\s+/g, '')
      .toLowerCase();
    expect(tag.split(':')).toEqual(sig.h);

    const [tx] = await dkimSignatures(mails.transactional.raw, dns);
    expect(tx).toMatchObject({ result: 'pass', domain: d.domain });
    expect(tx.h).not.toContain('list-unsubscribe');
  });

  it('scores below 2 with SpamAssassin (local tests), marketing and transactional', async () => {
    mails ??= await stockMails();
    const [marketing, transactional] = [await spamScore(mails.marketing.raw), await spamScore(mails.transactional.raw)];
    expect(marketing.score, `marketing: ${marketing.tests}`).toBeLessThan(2);
    expect(transactional.score, `transactional: ${transactional.tests}`).toBeLessThan(2);
  }, 240_000);
});
