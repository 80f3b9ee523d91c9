import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../../test/dns-server.js';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, dkimResults, eventually, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { startReceiver } from '../../test/webhook-receiver.js';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../config.js';
import { resealDkimKeys } from '../domains/domains.service.js';
import { keyring, secretPlaces } from '../lib/secret-places.js';
import { openSecret } from '../lib/secrets.js';
import { resealWebhookSecrets } from '../webhook-endpoints/webhook-endpoints.service.js';
import { resealStepHeaders } from '../workflows/graph.service.js';
import { resealSecrets } from './reseal.js';

const KEY_B = 'rotated-key-B-rotated-key-B-rotated-key-B';
const KEY_C = 'unknown-key-C-unknown-key-C-unknown-key-C';

/** Secrets at rest: sealed in every row, older plaintext sealed at start, keys rotated (finding 11 of "Hardening II"). */
describe('secrets at rest', () => {
  let h: Harness;
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let p: TestProject;
  let d: TestDomain;
  const config = () => h.deps.config as Config & { ENCRYPTION_KEY?: string; ENCRYPTION_KEY_PREVIOUS?: string[] };

  beforeAll(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
    rx = await startReceiver();
    h = await createHarness({
      env: { SMTP_URL: sink.url, DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' },
      worker: true,
    });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id, { dns });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
    await dns?.close();
    await rx?.close();
  });

  const dkimRow = async () =>
    (await h.sql('select dkim_private_key as v from domains where id = $1', [d.id]))[0].v as string;
  /** Sends one mail and answers whether its DKIM signature verifies against the published key. */
  async function sendsSigned(to: string): Promise<string> {
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to, from: `hi@${d.domain}`, subject: 'Hi', body: '<p>Hi</p>' },
    });
    expect(res.status).toBe(200);
    const id = res.body.data.emails[0].email;
    const row = await eventually(
      async () =>
        (
          await h.sql(`select status, error from emails where id = $1 and status not in ('PENDING', 'SENDING')`, [id])
        )[0],
      20_000,
      'sent',
    );
    if (row.status !== 'SENT' && row.status !== 'DELIVERED') return `${row.status}: ${row.error}`;
    const [mail] = await eventually(
      async () => (sink.to(to).length ? sink.to(to) : undefined),
      20_000,
      `mail to ${to}`,
    );
    return (await dkimResults(mail.raw, dns))[0]?.result ?? 'none';
  }

  it('stores no PEM, no whsec_ and no header value; mail, webhooks and WEBHOOK steps still work', async () => {
    const ep = await h.request('POST', '/webhook-endpoints', {
      key: p.secretKey,
      body: { url: `${rx.base}/sealed`, events: ['contact.created'] },
    });
    const wf = await h.request('POST', '/workflows', {
      key: p.secretKey,
      body: { name: 'hooked', eventName: 'hooked' },
    });
    const step = await h.request('POST', `/workflows/${wf.body.id}/steps`, {
      key: p.secretKey,
      body: {
        type: 'WEBHOOK',
        name: 'hook',
        config: { url: `${rx.base}/step`, headers: { Authorization: 'Bearer receiver-token-123456' } },
      },
    });
    expect(step.status).toBe(201);
    const rows = JSON.stringify([
      await dkimRow(),
      (await h.sql('select secret from webhook_endpoints where id = $1', [ep.body.id]))[0].secret,
      (await h.sql('select config from workflow_steps where id = $1', [step.body.id]))[0].config,
    ]);
    expect(rows).not.toMatch(/BEGIN|PRIVATE KEY|whsec_|receiver-token/);

    expect(await sendsSigned('sealed@example.test')).toBe('pass');
    // The endpoint's delivery verifies with the secret the API showed.
    await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'hooked@example.test' } });
    const [hook] = await eventually(
      async () => (rx.at('/sealed').length ? rx.at('/sealed') : undefined),
      20_000,
      'webhook delivery',
    );
    expect(() => new Webhook(ep.body.secret).verify(hook.body, hook.headers)).not.toThrow();
    // The step's receiver gets the header in clear.
    const link = await h.request('POST', `/workflows/${wf.body.id}/transitions`, {
      key: p.secretKey,
      body: {
        fromStepId: (await h.request('GET', `/workflows/${wf.body.id}`, { key: p.secretKey })).body.steps.find(
          (s: { type: string }) => s.type === 'TRIGGER',
        ).id,
        toStepId: step.body.id,
      },
    });
    expect(link.status).toBe(201);
    expect(
      (await h.request('PATCH', `/workflows/${wf.body.id}`, { key: p.secretKey, body: { enabled: true } })).status,
    ).toBe(200);
    await h.request('POST', '/v1/track', { key: p.publicKey, body: { event: 'hooked', email: 'hooked@example.test' } });
    const [called] = await eventually(
      async () => (rx.at('/step').length ? rx.at('/step') : undefined),
      20_000,
      'step call',
    );
    expect(called.headers.authorization).toBe('Bearer receiver-token-123456');
  }, 90_000);

  it('seals plaintext an older version wrote, at start, and a second run changes nothing', async () => {
    const pem = openSecret(keyring(h.deps), await dkimRow(), secretPlaces.dkimKey(d.id));
    await h.sql('update domains set dkim_private_key = $2 where id = $1', [d.id, pem]);
    await h.sql(
      `update webhook_endpoints set secret = 'whsec_b2xkLXBsYWludGV4dC1zZWNyZXQtb2YtYmVmb3JlMDE=' where project_id = $1`,
      [p.id],
    );
    await h.sql(
      `update workflow_steps set config = jsonb_set(config, '{headers}', '{"X-Key": "plain-header-value"}') where project_id = $1 and type = 'WEBHOOK'`,
      [p.id],
    );
    await resealSecrets(h.deps);
    const after = JSON.stringify(
      await h.sql(
        `select d.dkim_private_key, e.secret, s.config from domains d, webhook_endpoints e, workflow_steps s
      where d.id = $1 and e.project_id = $2 and s.project_id = $2 and s.type = 'WEBHOOK'`,
        [d.id, p.id],
      ),
    );
    expect(after).not.toMatch(/BEGIN|whsec_|plain-header-value/);
    expect(await resealDkimKeys(h.deps)).toEqual({ changed: 0, unreadable: 0 });
    expect(await resealWebhookSecrets(h.deps)).toEqual({ changed: 0, unreadable: 0 });
    expect(await resealStepHeaders(h.deps)).toEqual({ changed: 0, unreadable: 0 });
    expect(await sendsSigned('resealed@example.test')).toBe('pass');
  }, 60_000);

  it('rotates: with a new key and the old one as previous, values are re-wrapped; with an unknown key, a clear error, not a crash', async () => {
    const before = await dkimRow();
    try {
      Object.assign(config(), { ENCRYPTION_KEY: KEY_B, ENCRYPTION_KEY_PREVIOUS: [h.deps.secret] });
      expect((await resealDkimKeys(h.deps)).changed).toBeGreaterThanOrEqual(1);
      const rewrapped = await dkimRow();
      expect(rewrapped.split(':')[2]).not.toBe(before.split(':')[2]);
      Object.assign(config(), { ENCRYPTION_KEY_PREVIOUS: undefined }); // B alone
      expect(await sendsSigned('rotated@example.test')).toBe('pass');
      Object.assign(config(), { ENCRYPTION_KEY: KEY_C }); // a key that sealed nothing here
      expect((await resealDkimKeys(h.deps)).unreadable).toBeGreaterThanOrEqual(1);
      expect(await sendsSigned('lost-key@example.test')).toMatch(
        /^FAILED: The DKIM key of .* cannot be read: sealed with key [0-9a-f]{8}/,
      );
    } finally {
      Object.assign(config(), { ENCRYPTION_KEY: undefined, ENCRYPTION_KEY_PREVIOUS: [KEY_B] });
      await resealDkimKeys(h.deps);
      Object.assign(config(), { ENCRYPTION_KEY_PREVIOUS: undefined });
    }
  }, 90_000);
});
