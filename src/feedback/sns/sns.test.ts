import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../../test/sending-fixtures.js';
import { startSesServer, type SesServer } from '../../../test/ses-server.js';
import {
  makeSigningKey,
  sesEvent,
  signSns,
  snsConfirmation,
  snsNotification,
  TEST_CERT_URL,
  TEST_TOPIC,
  type SnsBody,
  type TestSigningKey,
} from '../../../test/sns-signer.js';
import { inlineBuilder } from '../../emails/delivery/mime-builder.js';
import { sesTransport } from '../../emails/delivery/ses-transport.js';
import { enqueue } from '../../worker/jobs.js';
import { purgeSnsNotificationsJob } from '../feedback.jobs.js';

const credentials = {
  accessKeyId: 'AKIDPIGEONTEST000002',
  secretAccessKey: 'pigeon-test-secret-access-key-9876543210',
};

// SES feedback through SNS: mail is sent through a stand-in SES endpoint, then signed SNS notifications
// about it are posted the way SNS posts them (text/plain JSON).
describe('POST /webhooks/sns', () => {
  let ses: SesServer;
  let h: Harness;
  let p: TestProject;
  let d: TestDomain;
  let key: TestSigningKey;
  const fetched: string[] = [];
  const confirmed: string[] = [];

  beforeAll(async () => {
    key = makeSigningKey();
    ses = await startSesServer(credentials);
    h = await createHarness({
      worker: true,
      env: { SNS_TOPIC_ARNS: TEST_TOPIC },
      transport: sesTransport({ region: 'eu-west-1', endpoint: ses.url, credentials, mime: inlineBuilder() }),
    });
    // The test's certificate is served in place of SNS's: only through the dependency object.
    h.deps.sns = {
      fetchCertificate: async (url) => {
        fetched.push(url);
        return key.certPem;
      },
      confirmSubscription: async (url) => {
        confirmed.push(url);
      },
    };
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
  });
  afterAll(async () => {
    await h?.close();
    await ses?.close();
  });

  const post = (body: SnsBody | string) =>
    h.request('POST', '/webhooks/sns', {
      raw: true,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: {
        'content-type': 'text/plain; charset=UTF-8',
        'x-amz-sns-message-type': typeof body === 'string' ? 'Notification' : body.Type,
      },
    });
  /** Sends a mail through SES and waits for it to be SENT; answers its id and SES MessageId. */
  const sent = async (to: string) => {
    await h.sql(`insert into contacts (id, project_id, email, subscribed) values (gen_random_uuid(), $1, $2, true)`, [
      p.id,
      to,
    ]);
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to, from: `hello@${d.domain}`, subject: 'Hi', body: '<p>Hi</p>' },
    });
    const id = res.body.data.emails[0].email as string;
    const row = await eventually(
      async () => (await h.sql(`select provider_message_id from emails where id = $1 and status = 'SENT'`, [id]))[0],
      15_000,
      'SENT',
    );
    return { id, sesId: row.provider_message_id as string };
  };
  const email = async (id: string) =>
    (await h.sql('select status, error, delivered_at, bounced_at, complained_at from emails where id = $1', [id]))[0];
  const events = async (id: string) =>
    await h.sql(
      `select name, data from events where email_id = $1 and name <> 'email.sent' order by created_at, name`,
      [id],
    );
  const contact = async (to: string) =>
    (await h.sql('select id, subscribed from contacts where project_id = $1 and email = $2', [p.id, to]))[0];
  const suppression = async (to: string) =>
    (await h.sql('select reason from suppressions where project_id = $1 and email = $2', [p.id, to])).map(
      (r) => r.reason,
    );
  const notifications = async (id: string) =>
    (await h.sql('select 1 from sns_notifications where id = $1', [id])).length;

  it('confirms a subscription by fetching its SNS SubscribeURL', async () => {
    const url = `https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${TEST_TOPIC}&Token=abc`;
    const res = await post(signSns(snsConfirmation(url), key.keyPem));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'confirmed' });
    expect(confirmed).toEqual([url]);
  });

  it("refuses a SubscribeURL that is not SNS's, even when signed", async () => {
    for (const url of [
      'https://attacker.example/confirm',
      'http://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription',
      'https://sns.eu-west-1.amazonaws.com.attacker.example/x',
      'https://sns.eu-west-1.amazonaws.com:8443/x',
    ]) {
      const res = await post(signSns(snsConfirmation(url), key.keyPem));
      expect(res.status, url).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    expect(confirmed).toHaveLength(1);
  });

  it('Delivery: DELIVERED and email.delivery; a replayed notification is acknowledged and ignored', async () => {
    const m = await sent('dora@example.test');
    const n = signSns(snsNotification(sesEvent('Delivery', m.sesId, 'dora@example.test')), key.keyPem, '1');
    const res = await post(n);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'processed' });
    expect((await email(m.id)).status).toBe('DELIVERED');
    const again = await post(n);
    expect(again.body).toEqual({ status: 'duplicate' });
    const ev = await events(m.id);
    expect(ev.map((e) => e.name)).toEqual(['email.delivery']);
    expect(ev[0].data).toMatchObject({
      emailId: m.id,
      messageId: `<${m.id}@${d.domain}>`,
      sourceType: 'TRANSACTIONAL',
    });
  });

  it('permanent Bounce (SignatureVersion 2): BOUNCED, suppressed, unsubscribed, email.bounce', async () => {
    const m = await sent('gone@example.test');
    const res = await post(signSns(snsNotification(sesEvent('Bounce', m.sesId, 'gone@example.test')), key.keyPem, '2'));
    expect(res.body).toEqual({ status: 'processed' });
    expect(await email(m.id)).toMatchObject({ status: 'BOUNCED', error: 'smtp; 550 5.1.1 user unknown' });
    const ev = await events(m.id);
    expect(ev.map((e) => e.name)).toEqual(['email.bounce']);
    expect(ev[0].data).toMatchObject({
      emailId: m.id,
      bounceType: 'Permanent',
      diagnostic: 'smtp; 550 5.1.1 user unknown',
    });
    expect(await suppression('gone@example.test')).toEqual(['bounce']);
    const c = await contact('gone@example.test');
    expect(c.subscribed).toBe(false);
    expect(
      await h.sql(`select 1 from events where contact_id = $1 and name = 'contact.unsubscribed'`, [c.id]),
    ).toHaveLength(1);
  });

  it('transient Bounce: email.bounce only', async () => {
    const m = await sent('full@example.test');
    const res = await post(
      signSns(
        snsNotification(
          sesEvent('Bounce', m.sesId, 'full@example.test', { bounceType: 'Transient', bounceSubType: 'MailboxFull' }),
        ),
        key.keyPem,
      ),
    );
    expect(res.body).toEqual({ status: 'processed' });
    expect((await email(m.id)).status).toBe('SENT');
    const ev = await events(m.id);
    expect(ev.map((e) => [e.name, e.data.bounceType])).toEqual([['email.bounce', 'Transient']]);
    expect(await suppression('full@example.test')).toEqual([]);
    expect((await contact('full@example.test')).subscribed).toBe(true);
  });

  it('Complaint after the mail was read: COMPLAINED, suppressed, unsubscribed, email.complaint', async () => {
    const m = await sent('angry@example.test');
    await h.sql(`update emails set status = 'CLICKED', opened_at = now(), clicked_at = now() where id = $1`, [m.id]);
    const res = await post(signSns(snsNotification(sesEvent('Complaint', m.sesId, 'angry@example.test')), key.keyPem));
    expect(res.body).toEqual({ status: 'processed' });
    expect((await email(m.id)).status).toBe('COMPLAINED');
    const ev = await events(m.id);
    expect(ev.map((e) => [e.name, e.data.feedbackType])).toEqual([['email.complaint', 'abuse']]);
    expect(await suppression('angry@example.test')).toEqual(['complaint']);
    expect((await contact('angry@example.test')).subscribed).toBe(false);
    // A Delivery notification arriving late does not move it back.
    await post(signSns(snsNotification(sesEvent('Delivery', m.sesId, 'angry@example.test')), key.keyPem));
    expect((await email(m.id)).status).toBe('COMPLAINED');
  });

  it('a forged, re-signed or unsigned notification is 403 and writes nothing', async () => {
    const m = await sent('target@example.test');
    const genuine = signSns(snsNotification(sesEvent('Delivery', m.sesId, 'target@example.test')), key.keyPem);
    const forged = { ...genuine, Message: JSON.stringify(sesEvent('Complaint', m.sesId, 'target@example.test')) };
    const other = makeSigningKey();
    const wrongKey = signSns(snsNotification(sesEvent('Complaint', m.sesId, 'target@example.test')), other.keyPem);
    const { Signature: _s, ...unsigned } = snsNotification(sesEvent('Complaint', m.sesId, 'target@example.test'), {
      SignatureVersion: '1',
    });
    const badVersion = { ...genuine, SignatureVersion: '3' };
    const foreignCert = signSns(
      snsNotification(sesEvent('Complaint', m.sesId, 'target@example.test'), {
        SigningCertURL: 'https://attacker.example/SimpleNotificationService-x.pem',
      }),
      key.keyPem,
    );
    const otherRegion = signSns(
      snsNotification(sesEvent('Complaint', m.sesId, 'target@example.test'), {
        SigningCertURL: TEST_CERT_URL.replace('eu-west-1', 'us-east-1'),
      }),
      key.keyPem,
    );
    const before = fetched.length;
    for (const [what, body] of Object.entries({ forged, wrongKey, unsigned, badVersion, foreignCert, otherRegion })) {
      const res = await post(body as SnsBody);
      expect(res.status, what).toBe(403);
      expect(res.body.error.code, what).toBe('FORBIDDEN');
      expect(await notifications((body as SnsBody).MessageId), what).toBe(0);
    }
    // No certificate was fetched from anywhere but SNS's address (cached after the first test).
    expect(fetched.slice(before).every((u) => u === TEST_CERT_URL)).toBe(true);
    expect(await email(m.id)).toMatchObject({ status: 'SENT', complained_at: null });
    expect(await events(m.id)).toEqual([]);
    expect(await suppression('target@example.test')).toEqual([]);
  });

  it('fetches the signing certificate once and caches it', () => {
    expect(fetched.filter((u) => u === TEST_CERT_URL)).toHaveLength(1);
  });

  it('acknowledges events Pigeon does not use and messages it did not send, once each', async () => {
    const m = await sent('reader@example.test');
    const open = signSns(snsNotification(sesEvent('Open', m.sesId, 'reader@example.test')), key.keyPem);
    expect((await post(open)).body).toEqual({ status: 'ignored' });
    const foreign = signSns(snsNotification(sesEvent('Bounce', '0100019unknown-000000', 'x@example.test')), key.keyPem);
    expect((await post(foreign)).body).toEqual({ status: 'ignored' });
    expect((await post(foreign)).body).toEqual({ status: 'duplicate' });
    expect(await events(m.id)).toEqual([]);
  });

  it('a correctly signed complaint from a topic not in SNS_TOPIC_ARNS changes nothing, and fetches no certificate', async () => {
    const m = await sent('foreign-topic@example.test');
    const before = fetched.length;
    const otherCert = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-other.pem';
    const n = signSns(
      snsNotification(sesEvent('Complaint', m.sesId, 'foreign-topic@example.test'), {
        TopicArn: 'arn:aws:sns:eu-west-1:210987654321:someone-elses-topic',
        SigningCertURL: otherCert,
      }),
      key.keyPem,
    );
    const res = await post(n);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/is not in SNS_TOPIC_ARNS/);
    expect(fetched.length).toBe(before);
    expect(await email(m.id)).toMatchObject({ status: 'SENT', complained_at: null });
    expect(await suppression('foreign-topic@example.test')).toEqual([]);
    expect((await contact('foreign-topic@example.test')).subscribed).toBe(true);
    expect(await notifications(n.MessageId!)).toBe(0);
  });

  it('a complaint that names only the Message-ID header (no SES message id of ours) changes nothing', async () => {
    const m = await sent('by-header@example.test');
    const event = sesEvent('Complaint', '0100019not-ours-000000', 'by-header@example.test');
    (event.mail as { commonHeaders: Record<string, unknown> }).commonHeaders.messageId = `<${m.id}@${d.domain}>`;
    expect((await post(signSns(snsNotification(event), key.keyPem))).body).toEqual({ status: 'ignored' });
    expect(await email(m.id)).toMatchObject({ status: 'SENT', complained_at: null });
    expect(await suppression('by-header@example.test')).toEqual([]);
  });

  it('answers 404 when SES feedback is not configured at all, 403 when SES is but no topic is listed', async () => {
    const config = h.deps.config as { SNS_TOPIC_ARNS?: string[]; SES_REGION?: string };
    const m = await sent('unconfigured@example.test');
    const n = signSns(snsNotification(sesEvent('Complaint', m.sesId, 'unconfigured@example.test')), key.keyPem);
    delete config.SNS_TOPIC_ARNS;
    try {
      const none = await post(n);
      expect(none.status).toBe(404);
      expect(none.body.error.code).toBe('RESOURCE_NOT_FOUND');
      config.SES_REGION = 'eu-west-1';
      expect((await post(n)).status).toBe(403);
    } finally {
      config.SNS_TOPIC_ARNS = [TEST_TOPIC];
      delete config.SES_REGION;
    }
    expect((await email(m.id)).status).toBe('SENT');
  });

  it('remembers a failed certificate fetch: posts naming it do not fetch again within the window', async () => {
    const saved = h.deps.sns;
    let attempts = 0;
    h.deps.sns = {
      fetchCertificate: async () => {
        attempts += 1;
        throw new Error('connection refused');
      },
      confirmSubscription: async () => undefined,
    };
    try {
      for (let i = 0; i < 5; i++) {
        const n = signSns(snsNotification(sesEvent('Delivery', `0100019x-${i}`, 'x@example.test')), key.keyPem);
        const res = await post(n);
        expect(res.status).toBe(403);
        expect(res.body.error.message).toMatch(/certificate could not be fetched/);
      }
      expect(attempts).toBe(1);
    } finally {
      h.deps.sns = saved;
    }
  });

  it('refuses a genuine notification older than 7 days or from the future (a replay after its id was purged)', async () => {
    const m = await sent('late@example.test');
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const day = 24 * 3600_000;
    for (const [what, ts] of [
      ['8 days old', at(-8 * day)],
      ['an hour ahead', at(3600_000)],
      ['not a date', 'yesterday'],
    ]) {
      const n = signSns(
        snsNotification(sesEvent('Complaint', m.sesId, 'late@example.test'), { Timestamp: ts }),
        key.keyPem,
      );
      const res = await post(n);
      expect(res.status, what).toBe(403);
      expect(res.body.error.code, what).toBe('FORBIDDEN');
      expect(await notifications(n.MessageId!), what).toBe(0);
    }
    expect(await email(m.id)).toMatchObject({ status: 'SENT', complained_at: null });
    // Six days old is still within SNS's longest retry policy: applied.
    const retried = signSns(
      snsNotification(sesEvent('Delivery', m.sesId, 'late@example.test'), { Timestamp: at(-6 * day) }),
      key.keyPem,
    );
    expect((await post(retried)).body).toEqual({ status: 'processed' });
    expect((await email(m.id)).status).toBe('DELIVERED');
  });

  it('the daily purge forgets ids processed more than 8 days ago and keeps the rest', async () => {
    const old = `purge-old-${Date.now()}`;
    const recent = `purge-recent-${Date.now()}`;
    await h.sql(
      `insert into sns_notifications (id, processed_at) values ($1, now() - interval '9 days'), ($2, now() - interval '7 days')`,
      [old, recent],
    );
    await h.deps.db.transaction(async (tx) => enqueue(tx, purgeSnsNotificationsJob, {}));
    await expect.poll(async () => notifications(old), { timeout: 10_000 }).toBe(0);
    expect(await notifications(recent)).toBe(1);
  });

  it('a body that is not JSON is 400', async () => {
    const res = await post('{"Type": "Notification",');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
  });
});
