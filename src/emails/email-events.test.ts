import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';

// The data of `email.*` events (and so of their event webhooks) is built in two places: in SQL by the
// set-based writer of `email.sent`, and in TypeScript (emailEventData) for opens, clicks, bounces and
// failures. A consumer must find the same fields in both.
describe('email.* event data', () => {
  let h: Harness;
  let sink: SmtpSink;
  let p: TestProject;
  let d: TestDomain;

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url }, worker: true });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  it('names the recipient and the source alike in email.sent (SQL) and email.open (TypeScript)', async () => {
    const to = 'reader@example.test';
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to, from: `hello@${d.domain}`, subject: 'Hi', body: '<p>Hello</p>' },
    });
    expect(res.status).toBe(200);
    const emailId = res.body.data.emails[0].email as string;
    const mail = await eventually(async () => sink.to(to)[0], 15_000, `mail to ${to}`);
    const pixel = /src="([^"]*\/t\/o\/[^"]+)"/.exec(String(mail.parsed.html))?.[1];
    expect(pixel).toBeTruthy();
    const open = await fetch(pixel!.replaceAll('&amp;', '&'));
    expect(open.status).toBe(200);

    const events = await eventually(
      async () => {
        const rows = await h.sql<{ name: string; data: Record<string, unknown> }>(
          `select name, data from events where project_id = $1 and email_id = $2 order by name`,
          [p.id, emailId],
        );
        return rows.some((r) => r.name === 'email.open') ? rows : undefined;
      },
      15_000,
      'the email.open event',
    );
    const sent = events.find((e) => e.name === 'email.sent')!.data;
    const opened = events.find((e) => e.name === 'email.open')!.data;
    expect(sent).toMatchObject({ emailId, to, subject: 'Hi', sourceType: 'TRANSACTIONAL' });
    expect(typeof sent.messageId).toBe('string');
    // The open adds its machine-activity verdict (emails/tracking/machine.ts); the rest is alike.
    expect(opened).toEqual({ ...sent, machine: false });
  });
});
