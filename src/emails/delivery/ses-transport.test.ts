import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { startDnsServer, type TestDnsServer } from '../../../test/dns-server.js';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import {
  createVerifiedDomain,
  dkimResults,
  eventually,
  rawHeader,
  runJobsNow,
  type TestDomain,
} from '../../../test/sending-fixtures.js';
import { startSesServer, type SesServer } from '../../../test/ses-server.js';
import { deliverBatch } from './deliver.js';
import { inlineBuilder } from './mime-builder.js';
import { sesTransport } from './ses-transport.js';

const credentials = {
  accessKeyId: 'AKIDPIGEONTEST000001',
  secretAccessKey: 'pigeon-test-secret-access-key-0123456789',
};

// Delivery through Amazon SES, against a local server standing in for the SES v2 endpoint.
describe('email delivery through Amazon SES', () => {
  let ses: SesServer;
  let dns: TestDnsServer;
  let h: Harness;
  let p: TestProject;
  let d: TestDomain;

  beforeAll(async () => {
    ses = await startSesServer({
      ...credentials,
      decide: (req, attempt) => {
        const to = req.to[0] ?? '';
        if (to.startsWith('throttle') && attempt === 1)
          return { status: 429, type: 'TooManyRequestsException', message: 'Maximum sending rate exceeded.' };
        if (to.startsWith('fault') && attempt === 1)
          return { status: 500, type: 'InternalServiceErrorException', message: 'Internal failure' };
        if (to.startsWith('reject'))
          return { status: 400, type: 'MessageRejected', message: 'Email address is not verified.' };
        return 'accept';
      },
    });
    dns = await startDnsServer();
    h = await createHarness({
      worker: true,
      transport: sesTransport({
        region: 'eu-west-1',
        endpoint: ses.url,
        credentials,
        configurationSet: 'pigeon-events',
        mime: inlineBuilder(),
      }),
    });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id, { dns });
  });
  afterAll(async () => {
    await h?.close();
    await ses?.close();
    await dns?.close();
  });

  const send = async (to: string, subject = 'Hi') => {
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to, from: `hello@${d.domain}`, subject, body: '<p>Hello</p>' },
    });
    expect(res.status).toBe(200);
    return res.body.data.emails[0].email as string;
  };
  const row = async (id: string) =>
    (await h.sql('select status, error, attempts, message_id, provider_message_id from emails where id = $1', [id]))[0];

  it("sends SigV4-signed raw MIME carrying Pigeon's DKIM signature, and stores the SES MessageId", async () => {
    const id = await send('ann@example.test', 'Through SES');
    const r = await eventually(async () => (await row(id))?.status === 'SENT' && row(id), 15_000, 'SENT');
    const [req] = ses.to('ann@example.test');
    expect(req.signatureValid).toBe(true);
    expect(req.scope).toMatch(new RegExp(`^${credentials.accessKeyId}/\\d{8}/eu-west-1/ses/aws4_request$`));
    expect(req.configurationSet).toBe('pigeon-events');
    expect(rawHeader(req.raw, 'Subject')).toBe('Through SES');
    expect(rawHeader(req.raw, 'Message-ID')).toBe(`<${id}@${d.domain}>`);
    expect(await dkimResults(req.raw, dns)).toEqual([{ result: 'pass', domain: d.domain }]);
    expect(r).toMatchObject({ message_id: `<${id}@${d.domain}>`, provider_message_id: req.messageId, error: null });
    // SES has the message, not yet the recipient: DELIVERED waits for SES's Delivery notification.
    expect((await h.sql('select name from events where email_id = $1', [id])).map((e) => e.name)).toEqual([
      'email.sent',
    ]);
  });

  it('throttling is retried, then sent once', async () => {
    const id = await send('throttle@example.test');
    const first = await eventually(
      async () =>
        (await h.sql(`select status, error, attempts from emails where id = $1 and error is not null`, [id]))[0],
      15_000,
      'first failure',
    );
    expect(first.error).toContain('SES TooManyRequestsException (HTTP 429)');
    for (let i = 0; i < 100 && (await row(id)).status !== 'SENT'; i++) {
      await runJobsNow(h);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await row(id)).toMatchObject({ status: 'SENT', attempts: 2, error: null });
    expect(ses.to('throttle@example.test').map((q) => q.messageId !== undefined)).toEqual([false, true]);
  });

  it('an SES fault (5xx) is retried', async () => {
    const id = await send('fault@example.test');
    for (let i = 0; i < 100 && (await row(id)).status !== 'SENT'; i++) {
      await runJobsNow(h);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await row(id)).toMatchObject({ status: 'SENT', attempts: 2 });
  });

  it('MessageRejected fails the email at once with the reason', async () => {
    const id = await send('reject@example.test');
    const r = await eventually(async () => (await row(id))?.status === 'FAILED' && row(id), 15_000, 'FAILED');
    expect(r.error).toBe('SES MessageRejected (HTTP 400): Email address is not verified.');
    expect(r.attempts).toBe(1);
    expect(ses.to('reject@example.test')).toHaveLength(1);
    expect(await h.sql('select name from events where email_id = $1', [id])).toEqual([]);
  });
});

describe('SES batch delivery and signing', () => {
  it('a batch goes through SES, each mail with its own MessageId', async () => {
    const ses = await startSesServer(credentials);
    const h = await createHarness({
      transport: sesTransport({ region: 'us-east-1', endpoint: ses.url, credentials, mime: inlineBuilder() }),
    });
    try {
      const p = await createProject(h);
      const d = await createVerifiedDomain(h, p.id);
      const ids: string[] = [];
      for (const to of ['b1@example.test', 'b2@example.test', 'b3@example.test']) {
        const res = await h.request('POST', '/v1/send', {
          key: p.secretKey,
          body: { to, from: `hello@${d.domain}`, subject: 'Batch', body: '<p>x</p>' },
        });
        ids.push(res.body.data.emails[0].email);
      }
      // No worker runs in this harness: the batch job's function runs here.
      await deliverBatch(h.deps, ids);
      const rows = await h.sql(
        'select id, status, provider_message_id from emails where id = any($1::uuid[]) order by id',
        [ids],
      );
      expect(rows.map((r) => r.status)).toEqual(['SENT', 'SENT', 'SENT']);
      const batch = ses.requests.filter((q) => /^b\d@/.test(q.to[0]));
      expect(batch).toHaveLength(3);
      expect(batch.every((q) => q.signatureValid && q.configurationSet === undefined)).toBe(true);
      expect(new Set(rows.map((r) => r.provider_message_id))).toEqual(new Set(batch.map((q) => q.messageId)));
    } finally {
      await h.close();
      await ses.close();
    }
  });

  it('a request signed with other credentials is refused by the stand-in and retried, not failed', async () => {
    const ses = await startSesServer(credentials);
    const t = sesTransport({
      region: 'us-east-1',
      endpoint: ses.url,
      credentials: { ...credentials, secretAccessKey: 'wrong-secret' },
      mime: inlineBuilder(),
    });
    try {
      const err = await t
        .send({ from: 'a@example.test', to: 'b@example.test', subject: 'x', text: 'x' })
        .catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).not.toBe('PermanentSendError');
      expect(err.message).toContain('SignatureDoesNotMatch');
    } finally {
      await t.close();
      await ses.close();
    }
  });

  it('SES_CONFIGURATION_SET and SES_ENDPOINT need SES_REGION', () => {
    expect(() => loadConfig({ SES_ENDPOINT: 'http://127.0.0.1:4566' })).toThrow(/SES_REGION/);
    expect(() => loadConfig({ SES_REGION: 'EU' })).toThrow(/SES_REGION/);
    const c = loadConfig({ SES_REGION: 'eu-west-1', SES_CONFIGURATION_SET: 'pigeon-events' });
    expect(c.SES_REGION).toBe('eu-west-1');
  });
});
