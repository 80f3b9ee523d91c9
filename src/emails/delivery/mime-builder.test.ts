import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import { startDnsServer } from '../../../test/dns-server.js';
import { dkimResults } from '../../../test/sending-fixtures.js';
import { inlineBuilder, threadedBuilder, type MimeBuilder } from './mime-builder.js';

// The builder on worker threads must produce what the inline one does: same headers and parts,
// attachments byte for byte, a DKIM signature, and nodemailer's errors as rejections.
describe('MIME builder', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const threaded = threadedBuilder(2);
  const inline = inlineBuilder();
  afterAll(async () => {
    await threaded.close();
    await inline.close();
  });

  const attachment = randomBytes(70_000);
  const message = () => ({
    from: { name: 'News', address: 'news@example.test' },
    to: { name: '', address: 'ada@rcpt.test' },
    subject: 'Grüße',
    html: '<p>Hello</p>',
    text: 'Hello',
    messageId: '<abc@example.test>',
    date: new Date('2026-11-23T10:00:00Z'),
    headers: { 'List-Unsubscribe': '<https://x.test/u>' },
    attachments: [{ filename: 'data.bin', content: attachment, contentType: 'application/octet-stream' }],
    dkim: { domainName: 'example.test', keySelector: 'pigeon', privateKey: key },
  });

  it.each([
    ['threaded', () => threaded],
    ['inline', () => inline],
  ] as Array<[string, () => MimeBuilder]>)('%s: builds a signed message with its attachment intact', async (_n, b) => {
    const built = await b().build(message());
    expect(Buffer.isBuffer(built.message)).toBe(true);
    expect(built.envelope).toEqual({ from: 'news@example.test', to: ['ada@rcpt.test'] });
    expect(built.messageId).toBe('<abc@example.test>');
    const raw = built.message.toString('latin1');
    expect(raw).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=example.test;/m);
    expect(raw).toContain('\r\n');
    const parsed = await simpleParser(built.message);
    expect(parsed.subject).toBe('Grüße');
    expect(raw).toMatch(/^List-Unsubscribe: <https:\/\/x\.test\/u>\r$/m);
    expect(Buffer.compare(parsed.attachments[0].content, attachment)).toBe(0);
  });

  it('builds many messages at once across threads, each answered with its own', async () => {
    const built = await Promise.all(
      Array.from({ length: 40 }, (_, i) => threaded.build({ ...message(), subject: `No. ${i}`, attachments: [] })),
    );
    for (const [i, b] of built.entries()) expect((await simpleParser(b.message)).subject).toBe(`No. ${i}`);
  });

  it('builds an urgent mail at once behind bulk builds, and in turn behind urgent ones', async () => {
    const one = threadedBuilder(1);
    try {
      const order: string[] = [];
      const build = (name: string, urgent: boolean) =>
        one
          .build({ ...message(), subject: name }, { urgent })
          .then(() => void order.push(name))
          .then(() => undefined);
      // Behind 15 bulk builds, the urgent one does not wait for them (built on the event loop).
      const bulk = Array.from({ length: 15 }, (_, i) => build(`bulk ${i}`, false));
      await build('urgent behind bulk', true);
      expect(order.filter((n) => n.startsWith('bulk')).length).toBeLessThan(15);
      expect(one.inlineBuilds()).toBe(1);
      await Promise.all(bulk);
      // Behind urgent builds only, it takes its turn on the thread: the thread answers in order.
      order.length = 0;
      await Promise.all([
        ...Array.from({ length: 5 }, (_, i) => build(`urgent ${i}`, true)),
        build('urgent last', true),
      ]);
      expect(order).toEqual(['urgent 0', 'urgent 1', 'urgent 2', 'urgent 3', 'urgent 4', 'urgent last']);
      expect(one.inlineBuilds()).toBe(1);
    } finally {
      await one.close();
    }
  });

  it("inline: an urgent build does not wait behind a campaign's queued builds", async () => {
    const one = inlineBuilder(2);
    try {
      const order: string[] = [];
      const build = (name: string, urgent: boolean) =>
        one.build({ ...message(), attachments: [], subject: name }, { urgent }).then(() => void order.push(name));
      const bulk = Array.from({ length: 20 }, (_, i) => build(`bulk ${i}`, false));
      await build('urgent', true);
      // Two bulk builds at a time: the urgent one shares the event loop with those two, not with 20.
      expect(order.filter((n) => n.startsWith('bulk')).length).toBeLessThan(5);
      await Promise.all(bulk);
      expect(order).toHaveLength(21);
    } finally {
      await one.close();
    }
  });

  it("rejects with nodemailer's error, and keeps working after it", async () => {
    await expect(
      threaded.build({ ...message(), attachments: [{ filename: 'x', path: '/nonexistent/pigeon-file' }] }),
    ).rejects.toThrow(/ENOENT/);
    expect((await threaded.build(message())).messageId).toBe('<abc@example.test>');
  });

  // Keys are parsed once and kept by their PEM text (withParsedKey): each signature must still be
  // made with the key its message names, and a key that does not parse is nodemailer's to refuse.
  it.each([
    ['threaded', () => threaded],
    ['inline', () => inline],
  ] as Array<[string, () => MimeBuilder]>)(
    "%s: signs each message with its own domain's key, every time",
    async (_n, b) => {
      const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 1024 });
      const domains = ['one.example.test', 'two.example.test'].map((name) => ({ name, ...keyPair() }));
      const dns = await startDnsServer();
      try {
        for (const d of domains) {
          const p = d.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
          dns.set(`pigeon._domainkey.${d.name}`, { TXT: [`v=DKIM1; k=rsa; p=${p}`] });
        }
        const order = [0, 1, 0, 1, 1, 0];
        const built = await Promise.all(
          order.map((i) =>
            b().build({
              ...message(),
              attachments: [],
              from: `news@${domains[i].name}`,
              dkim: {
                domainName: domains[i].name,
                keySelector: 'pigeon',
                privateKey: domains[i].privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
              },
            }),
          ),
        );
        for (const [n, m] of built.entries()) {
          expect(await dkimResults(m.message, dns)).toEqual([{ result: 'pass', domain: domains[order[n]].name }]);
        }
        const unparsable = await b().build({
          ...message(),
          attachments: [],
          dkim: { domainName: 'example.test', keySelector: 'pigeon', privateKey: 'not a key' },
        });
        expect(unparsable.message.toString('latin1')).not.toMatch(/^DKIM-Signature:/m);
      } finally {
        await dns.close();
      }
    },
  );
});
