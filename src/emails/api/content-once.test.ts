import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';

// A request's or a campaign's body and attachments are stored once, not once per recipient, and each
// recipient still gets the whole, personalised mail.
describe('content stored once', () => {
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

  it('stores one body and one copy of the attachments for a /v1/send to many recipients', async () => {
    const pdf = Buffer.alloc(200_000, 7);
    const to = ['one@once.test', 'two@once.test', 'three@once.test'];
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: {
        to,
        from: `hi@${d.domain}`,
        subject: 'Report',
        body: '<p>For {{contact.email}}</p>',
        attachments: [{ filename: 'report.pdf', content: pdf.toString('base64'), contentType: 'application/pdf' }],
      },
    });
    expect(res.status).toBe(200);
    const ids = res.body.data.emails.map((e: { email: string }) => e.email);
    const rows = await h.sql('select body, content_id from emails where id = any($1::uuid[])', [ids]);
    expect(new Set(rows.map((r) => r.content_id)).size).toBe(1);
    expect(rows.every((r) => r.body === null)).toBe(true);
    const contentId = rows[0].content_id;
    expect(await h.sql('select count(*)::int as n from email_contents where id = $1', [contentId])).toEqual([{ n: 1 }]);
    expect(
      await h.sql(
        'select count(*)::int as n, sum(length(content))::int as bytes from email_attachments where content_id = $1',
        [contentId],
      ),
    ).toEqual([{ n: 1, bytes: 200_000 }]);
    for (const addr of to) {
      const [m] = await eventually(
        async () => {
          const l = sink.to(addr);
          return l.length ? l : undefined;
        },
        20_000,
        `mail to ${addr}`,
      );
      expect(m.parsed.html).toContain(`For ${addr}`);
      expect(m.parsed.attachments.map((a) => [a.filename, a.content.length])).toEqual([['report.pdf', 200_000]]);
    }
  });

  it('keeps the body of a one-recipient /v1/send on its row, and shares it once attachments come along', async () => {
    const send = (to: string, attachments?: unknown[]) =>
      h.request('POST', '/v1/send', {
        key: p.secretKey,
        body: { to, from: `hi@${d.domain}`, subject: 'Solo', body: '<p>Just {{contact.email}}</p>', attachments },
      });
    const solo = await send('solo@once.test');
    expect(solo.status).toBe(200);
    const [row] = await h.sql('select body, content_id from emails where id = $1', [solo.body.data.emails[0].email]);
    expect(row).toEqual({ body: '<p>Just {{contact.email}}</p>', content_id: null });
    const [m] = await eventually(
      async () => {
        const l = sink.to('solo@once.test');
        return l.length ? l : undefined;
      },
      20_000,
      'solo mail',
    );
    expect(m.parsed.html).toContain('Just solo@once.test');

    const withFile = await send('file@once.test', [
      { filename: 'a.txt', content: Buffer.from('hello').toString('base64') },
    ]);
    expect(withFile.status).toBe(200);
    const [shared] = await h.sql('select body, content_id from emails where id = $1', [
      withFile.body.data.emails[0].email,
    ]);
    expect(shared.body).toBeNull();
    expect(await h.sql('select body from email_contents where id = $1', [shared.content_id])).toEqual([
      { body: '<p>Just {{contact.email}}</p>' },
    ]);
    const [f] = await eventually(
      async () => {
        const l = sink.to('file@once.test');
        return l.length ? l : undefined;
      },
      20_000,
      'mail with a file',
    );
    expect(f.parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['a.txt', 'hello']]);
  });

  it('still sends the attachments stored on an email itself (rows written before contents were shared)', async () => {
    const solo = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'first@once.test', from: `hi@${d.domain}`, subject: 'Own', body: '<p>Own {{contact.email}}</p>' },
    });
    expect(solo.status).toBe(200);
    await eventually(
      async () => {
        const l = sink.to('first@once.test');
        return l.length ? l : undefined;
      },
      20_000,
      'first mail',
    );
    // A copy of that row, PENDING again, with an attachment of its own (email_id, no shared content).
    const id = crypto.randomUUID();
    await h.sql(
      `insert into emails select (jsonb_populate_record(e, jsonb_build_object('id', $2::uuid, 'status', 'PENDING',
        'to_email', 'own@once.test', 'message_id', null, 'claim_token', null, 'sent_at', null, 'delivered_at', null,
        'provider_message_id', null, 'attempts', 0))).* from emails e where e.id = $1`,
      [solo.body.data.emails[0].email, id],
    );
    await h.sql(
      `insert into email_attachments (id, email_id, filename, content_type, content) values ($1, $2, 'own.txt', 'text/plain', $3)`,
      [crypto.randomUUID(), id, Buffer.from('mine')],
    );
    await h.sql(`select graphile_worker.add_job('emails:send', json_build_object('emailId', $1::text))`, [id]);
    const [m] = await eventually(
      async () => {
        const l = sink.to('own@once.test');
        return l.length ? l : undefined;
      },
      20_000,
      'mail with its own file',
    );
    expect(m.parsed.html).toContain('Own first@once.test');
    expect(m.parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['own.txt', 'mine']]);
    expect(await h.sql('select status from emails where id = $1', [id])).toEqual([{ status: 'DELIVERED' }]);
  });

  it('stores a campaign body once, under the campaign id', async () => {
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed) select gen_random_uuid(), $1, 'fan-' || i || '@once.test', true
      from generate_series(1, 4) i`,
      [p.id],
    );
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: {
        name: 'Once',
        subject: 'News',
        body: '<p>Hello {{contact.email}}</p>',
        from: `news@${d.domain}`,
        audienceType: 'FILTERED',
        audienceCondition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'fan-' }] }],
        },
      },
    });
    const id = c.body.data.id;
    expect((await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey })).status).toBe(200);
    await eventually(
      async () =>
        (await h.request('GET', `/campaigns/${id}`, { key: p.secretKey })).body.status === 'SENT' || undefined,
      30_000,
      'SENT',
    );
    expect(
      await h.sql(
        'select count(*)::int as n, count(*) filter (where body is null and content_id = $1)::int as shared from emails where campaign_id = $1',
        [id],
      ),
    ).toEqual([{ n: 4, shared: 4 }]);
    expect(await h.sql('select body from email_contents where id = $1', [id])).toEqual([
      { body: '<p>Hello {{contact.email}}</p>' },
    ]);
    expect(sink.to('fan-3@once.test')[0].parsed.html).toContain('Hello fan-3@once.test');
  });
});
