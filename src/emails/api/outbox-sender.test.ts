import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { waitForMail } from '../../../test/outbox.js';
import { createVerifiedDomain, eventually, rawHeader } from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';
import { deliverEmail } from '../delivery/deliver.js';

/** The raw `.eml` of the outbox whose text contains `needle`. */
async function rawMail(dataDir: string, needle: string): Promise<Buffer> {
  const dir = path.join(dataDir, 'outbox');
  for (const f of await readdir(dir)) {
    const raw = await readFile(path.join(dir, f));
    if (raw.includes(needle)) return raw;
  }
  throw new Error(`no outbox mail contains ${needle}`);
}

// A Pigeon whose mail stays in the outbox (no SMTP_URL, no SES_REGION) lets a sender without a verified
// domain send, unsigned and marked; one that relays mail (SMTP) refuses it as before.
describe('the outbox sender rule', () => {
  let local: Harness;
  let relay: Harness;
  let sink: SmtpSink;
  let p: TestProject;
  let r: TestProject;
  beforeAll(async () => {
    sink = await startSmtpSink();
    [local, relay] = await Promise.all([
      createHarness({ worker: true, localSenderRule: true }),
      createHarness({ localSenderRule: true, env: { SMTP_URL: sink.url } }),
    ]);
    [p, r] = await Promise.all([createProject(local), createProject(relay)]);
  });
  afterAll(async () => {
    await Promise.all([local?.close(), relay?.close()]);
    await sink?.close();
  });

  it('sends from an unverified domain into the outbox without DKIM-Signature, marked X-Pigeon-Unverified-Sender', async () => {
    expect(local.deps.mailStaysLocal).toBe(true);
    const res = await local.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'first@example.test', from: 'me@laptop.test', subject: 'First', body: '<p>It works</p>' },
    });
    expect(res.status).toBe(200);
    await waitForMail(local.dataDir, 'first@example.test', 'First');
    const raw = await rawMail(local.dataDir, 'first@example.test');
    expect(rawHeader(raw, 'X-Pigeon-Unverified-Sender')).toBe('outbox only');
    expect(rawHeader(raw, 'DKIM-Signature')).toBeUndefined();
    const id = res.body.data.emails[0].email;
    await eventually(
      async () => (await local.sql(`select status from emails where id = $1`, [id]))[0].status === 'SENT',
    );
  });

  it('still signs, unmarked, the mail of a verified domain', async () => {
    const d = await createVerifiedDomain(local, p.id);
    const res = await local.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'signed@example.test', from: `news@${d.domain}`, subject: 'Signed', body: '<p>Signed</p>' },
    });
    expect(res.status).toBe(200);
    await waitForMail(local.dataDir, 'signed@example.test', 'Signed');
    const raw = await rawMail(local.dataDir, 'signed@example.test');
    expect(rawHeader(raw, 'DKIM-Signature')).toMatch(new RegExp(`d=${d.domain.replace(/\./g, '\\.')}`));
    expect(rawHeader(raw, 'X-Pigeon-Unverified-Sender')).toBeUndefined();
  });

  it('lets templates and campaigns be saved and tested with an unverified sender', async () => {
    const t = await local.request('POST', '/templates', {
      key: p.secretKey,
      body: { name: 'Welcome', subject: 'Welcome', body: '<p>Hi</p>', from: 'me@laptop.test', type: 'TRANSACTIONAL' },
    });
    expect(t.status).toBe(201);
    const c = await local.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: 'Launch', subject: 'Launch', body: '<p>Hi</p>', from: 'me@laptop.test' },
    });
    expect(c.status).toBe(201);
    const test = await local.request('POST', `/campaigns/${c.body.data.id}/test`, {
      key: p.secretKey,
      body: { email: 'tester@example.test' },
    });
    expect(test.status).toBe(200);
    const mail = await waitForMail(local.dataDir, 'tester@example.test', '[TEST] Launch');
    expect(mail.headers.get('x-pigeon-unverified-sender')).toBe('outbox only');
  });

  it('refuses the same sender as before when mail leaves the machine (SMTP)', async () => {
    expect(relay.deps.mailStaysLocal).toBe(false);
    const send = await relay.request('POST', '/v1/send', {
      key: r.secretKey,
      body: { to: 'first@example.test', from: 'me@laptop.test', subject: 'First', body: '<p>x</p>' },
    });
    expect(send.status).toBe(422);
    expect(send.body.error.errors[0]).toMatchObject({ field: 'from', code: 'unverified_domain' });
    const t = await relay.request('POST', '/templates', {
      key: r.secretKey,
      body: { name: 'Welcome', subject: 'Welcome', body: '<p>Hi</p>', from: 'me@laptop.test' },
    });
    expect(t.status).toBe(403);
    expect(t.body.error.code).toBe('INTERNAL_SERVER_ERROR');
    const c = await relay.request('POST', '/campaigns', {
      key: r.secretKey,
      body: { name: 'Launch', subject: 'Launch', body: '<p>Hi</p>', from: 'me@laptop.test' },
    });
    expect(c.status).toBe(403);
    expect(sink.to('first@example.test')).toHaveLength(0);
  });

  it('fails at delivery, unsent, a queued mail whose sender is not covered when mail leaves the machine', async () => {
    // As a mail queued while its domain was verified, whose domain was removed since.
    const contact = await relay.request('POST', '/contacts', {
      key: r.secretKey,
      body: { email: 'late@example.test' },
    });
    const id = randomUUID();
    await relay.sql(
      `insert into emails (id, project_id, contact_id, to_email, from_email, subject, body, source_type)
      values ($1, $2, $3, 'late@example.test', 'me@laptop.test', 'Late', '<p>x</p>', 'TRANSACTIONAL')`,
      [id, r.id, contact.body.id],
    );
    await deliverEmail(relay.deps, id, { attempt: 1, maxAttempts: 5 });
    const [row] = await relay.sql(`select status, error from emails where id = $1`, [id]);
    expect(row).toEqual({ status: 'FAILED', error: 'The sender domain laptop.test is no longer verified' });
    expect(sink.to('late@example.test')).toHaveLength(0);
  });
});
