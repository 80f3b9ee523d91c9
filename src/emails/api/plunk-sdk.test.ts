import PlunkModule from '@plunk/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';

// The published Plunk client works unchanged against Pigeon (a client written against Plunk's
// public API must work unchanged). The package is CommonJS with `exports.default`.
type PlunkClass = (typeof PlunkModule)['default'];
const Plunk: PlunkClass =
  (PlunkModule as unknown as { default?: PlunkClass }).default ?? (PlunkModule as unknown as PlunkClass);

describe('@plunk/node SDK', () => {
  let h: Harness;
  let sink: SmtpSink;
  let p: TestProject;
  let d: TestDomain;
  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url + '?pool=2' }, worker: true });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  it('emails.send delivers the mail', async () => {
    const plunk = new Plunk(p.secretKey, { baseUrl: h.url + '/v1/' });
    const res: Json = await plunk.emails.send({
      to: ['sdk-a@example.test', 'sdk-b@example.test'],
      subject: 'From the SDK',
      body: '<p>Hello from <b>Plunk</b></p>',
      from: `sdk@${d.domain}`,
      name: 'SDK Sender',
      type: 'html',
      subscribed: true,
    });
    expect(res.success).toBe(true);
    expect(res.data.emails.map((e: Json) => e.contact.email)).toEqual(['sdk-a@example.test', 'sdk-b@example.test']);
    const [m] = await eventually(
      async () => (sink.to('sdk-b@example.test').length ? sink.to('sdk-b@example.test') : null),
      15_000,
      'mail',
    );
    expect(m.parsed.subject).toBe('From the SDK');
    expect(m.parsed.from?.value[0]).toEqual({ name: 'SDK Sender', address: `sdk@${d.domain}` });
    expect(m.parsed.html).toContain('Hello from <b>Plunk</b>');
  });

  it('events.track records the event with the public key', async () => {
    const plunk = new Plunk(p.publicKey, { baseUrl: h.url + '/v1/' });
    const res: Json = await plunk.events.track({
      event: 'sdk-signup',
      email: 'sdk-t@example.test',
      data: { plan: 'pro', ref: { value: 'x', persistent: false } },
    });
    expect(res.success).toBe(true);
    const [e] = await h.sql('select name, data, contact_id from events where id = $1', [res.data.event]);
    expect(e).toEqual({ name: 'sdk-signup', data: { plan: 'pro', ref: 'x' }, contact_id: res.data.contact });
  });

  it('throws the SDK errors for a wrong key and a refused request', async () => {
    const wrong = new Plunk('sk_wrong', { baseUrl: h.url + '/v1/' });
    await expect(
      wrong.emails.send({ to: 'x@example.test', subject: 's', body: 'b', from: `sdk@${d.domain}` }),
    ).rejects.toThrow('Invalid API Credentials Provided'); // the SDK's TokenError on 401
    const plunk = new Plunk(p.publicKey, { baseUrl: h.url + '/v1/' });
    await expect(plunk.events.track({ event: 'email.open', email: 'x@example.test' })).rejects.toThrow();
  });
});
