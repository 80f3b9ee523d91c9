import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { JOBS } from '../../../test/graphile-test.js';
import { createHarness, type Harness, type Json } from '../../../test/harness.js';
import { createTemplate, createVerifiedDomain, type TestDomain } from '../../../test/sending-fixtures.js';

// The request rules of POST /v1/send (recipients, templates, attachments, limits, unverified sender domains).
// No worker: the emails stay queued, which is what these tests look at.
describe('POST /v1/send', () => {
  let h: Harness;
  let p: TestProject;
  let d: TestDomain;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
  });
  afterAll(async () => h?.close());

  const send = (body: unknown, opts: { key?: string; headers?: Record<string, string> } = {}) =>
    h.request('POST', '/v1/send', { key: opts.key ?? p.secretKey, body, headers: opts.headers });
  const base = () => ({ from: `hello@${d.domain}`, subject: 'Hi', body: '<p>Hi</p>' });
  const fields = (res: { body: Json }) => res.body.error.errors.map((e: Json) => [e.field, e.code]);

  it('takes every form of `to`, one contact and one queued email per recipient, in order', async () => {
    const res = await send({
      ...base(),
      to: ['a1@example.test', { name: 'B', email: 'B1@Example.test' }, 'a1@example.test'],
    });
    expect(res.status).toBe(200);
    const emails = res.body.data.emails;
    expect(emails.map((e: Json) => e.contact.email)).toEqual(['a1@example.test', 'b1@example.test', 'a1@example.test']);
    expect(emails[0].contact.id).toBe(emails[2].contact.id);
    expect(new Set(emails.map((e: Json) => e.email)).size).toBe(3);
    const rows = await h.sql(
      `select to_email, to_name, status, source_type, type from emails where project_id = $1 order by id`,
      [p.id],
    );
    expect(rows).toEqual([
      {
        to_email: 'a1@example.test',
        to_name: null,
        status: 'PENDING',
        source_type: 'TRANSACTIONAL',
        type: 'TRANSACTIONAL',
      },
      {
        to_email: 'b1@example.test',
        to_name: 'B',
        status: 'PENDING',
        source_type: 'TRANSACTIONAL',
        type: 'TRANSACTIONAL',
      },
      {
        to_email: 'a1@example.test',
        to_name: null,
        status: 'PENDING',
        source_type: 'TRANSACTIONAL',
        type: 'TRANSACTIONAL',
      },
    ]);
    const jobs = await h.sql(`select payload->>'emailId' as id from ${JOBS} j where j.task_identifier = 'emails:send'`);
    expect(jobs.map((j) => j.id).sort()).toEqual(emails.map((e: Json) => e.email).sort());
    // New contacts of /v1/send are unsubscribed unless told.
    const single = await send({ ...base(), to: 'c1@example.test' });
    expect(single.body.data.emails).toHaveLength(1);
    expect(
      await h.sql(`select subscribed from contacts where project_id = $1 and email = 'c1@example.test'`, [p.id]),
    ).toEqual([{ subscribed: false }]);
  });

  it('keeps an existing contact subscription unless given, and emits the change', async () => {
    await send({ ...base(), to: 's1@example.test', subscribed: true });
    const [c] = await h.sql(`select id, subscribed from contacts where project_id = $1 and email = 's1@example.test'`, [
      p.id,
    ]);
    expect(c.subscribed).toBe(true);
    await send({ ...base(), to: 's1@example.test' });
    expect((await h.sql('select subscribed from contacts where id = $1', [c.id]))[0].subscribed).toBe(true);
    await send({ ...base(), to: 's1@example.test', subscribed: false });
    expect((await h.sql('select subscribed from contacts where id = $1', [c.id]))[0].subscribed).toBe(false);
    expect((await h.sql('select name from events where contact_id = $1', [c.id])).map((r) => r.name)).toEqual([
      'contact.unsubscribed',
    ]);
  });

  it('uses the template fields unless the request overrides them', async () => {
    const tpl = await createTemplate(h, p.id, {
      subject: 'T subject',
      body: '<p>T body</p>',
      from: `tpl@${d.domain}`,
      fromName: 'Tpl',
      replyTo: `r@${d.domain}`,
      type: 'TRANSACTIONAL',
    });
    const res = await send({ to: 't1@example.test', template: tpl });
    expect(res.status).toBe(200);
    const [row] = await h.sql(
      'select e.subject, coalesce(e.body, c.body) as body, from_email, from_name, reply_to, template_id, type from emails e left join email_contents c on c.id = e.content_id where e.id = $1',
      [res.body.data.emails[0].email],
    );
    expect(row).toEqual({
      subject: 'T subject',
      body: '<p>T body</p>',
      from_email: `tpl@${d.domain}`,
      from_name: 'Tpl',
      reply_to: `r@${d.domain}`,
      template_id: tpl,
      type: 'TRANSACTIONAL',
    });

    const over = await send({
      to: 't1@example.test',
      template: tpl,
      subject: 'Mine',
      from: { name: 'Me', email: `me@${d.domain}` },
      reply: `x@${d.domain}`,
    });
    const [row2] = await h.sql(
      'select e.subject, coalesce(e.body, c.body) as body, from_email, from_name, reply_to from emails e left join email_contents c on c.id = e.content_id where e.id = $1',
      [over.body.data.emails[0].email],
    );
    expect(row2).toEqual({
      subject: 'Mine',
      body: '<p>T body</p>',
      from_email: `me@${d.domain}`,
      from_name: 'Me',
      reply_to: `x@${d.domain}`,
    });
  });

  it('uses the deprecated `name` only for a string `from`', async () => {
    const a = await send({ ...base(), to: 'n1@example.test', name: 'Legacy' });
    const b = await send({
      ...base(),
      to: 'n1@example.test',
      from: { name: 'Object', email: `hello@${d.domain}` },
      name: 'Legacy',
    });
    const rows = await h.sql('select from_name from emails where id = any($1) order by id', [
      [a.body.data.emails[0].email, b.body.data.emails[0].email],
    ]);
    expect(rows.map((r) => r.from_name)).toEqual(['Legacy', 'Object']);
  });

  it('404 for an unknown template or one of another project', async () => {
    const other = await createProject(h);
    const foreign = await createTemplate(h, other.id, { subject: 's', body: 'b', from: `x@${d.domain}` });
    for (const template of [foreign, '0190aaaa-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const res = await send({ to: 'x@example.test', template });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
  });

  it('422 unverified_domain for a sender domain not verified for the project', async () => {
    const other = await createProject(h);
    const foreign = await createVerifiedDomain(h, other.id);
    const pending = await createVerifiedDomain(h, p.id, { verified: false });
    for (const from of [`a@${foreign.domain}`, `a@${pending.domain}`, 'a@gmail.com']) {
      const res = await send({ ...base(), from, to: 'u1@example.test' });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors[0]).toMatchObject({ field: 'from', code: 'unverified_domain' });
    }
    // A subdomain of a verified domain is covered.
    expect((await send({ ...base(), from: `a@news.${d.domain}`, to: 'u1@example.test' })).status).toBe(200);
    expect(
      await h.sql(`select 1 from contacts where project_id = $1 and email = 'u1@example.test'`, [p.id]),
    ).toHaveLength(1);
  });

  it('422 for every broken rule, with errors[]', async () => {
    const cases: Array<[unknown, Array<[string, string]>]> = [
      [{ ...base(), to: undefined }, [['to', 'invalid_type']]],
      [{ ...base(), to: 'not-an-email' }, [['to', 'invalid_string']]],
      [{ ...base(), to: [] }, [['to', 'too_small']]],
      [{ ...base(), to: ['a@example.test', { email: 'bad' }] }, [['to.1.email', 'invalid_string']]],
      [
        { to: 'a@example.test', from: `hello@${d.domain}` },
        [
          ['subject', 'invalid_type'],
          ['body', 'invalid_type'],
        ],
      ],
      [{ ...base(), to: 'a@example.test', subject: '' }, [['subject', 'too_small']]],
      [{ ...base(), to: 'a@example.test', subject: 'x'.repeat(999) }, [['subject', 'too_big']]],
      [{ ...base(), to: 'a@example.test', subject: 'Hi\r\nBcc: victim@example.test' }, [['subject', 'custom']]],
      [{ ...base(), to: 'a@example.test', body: '' }, [['body', 'too_small']]],
      [{ to: 'a@example.test', subject: 'Hi', body: '<p>x</p>' }, [['from', 'invalid_type']]],
      [{ ...base(), to: 'a@example.test', from: 'nope' }, [['from', 'invalid_string']]],
      [{ ...base(), to: 'a@example.test', reply: 'nope' }, [['reply', 'invalid_string']]],
      [
        { ...base(), to: 'a@example.test', headers: { 'X-Bad\r\nBcc': 'v' } },
        [['headers.X-Bad\r\nBcc', 'invalid_string']],
      ],
      [
        { ...base(), to: 'a@example.test', headers: { 'X-Ok': 'v\r\nBcc: victim@example.test' } },
        [['headers.X-Ok', 'invalid_string']],
      ],
      [{ ...base(), to: 'a@example.test', headers: { 'X-Long': 'v'.repeat(999) } }, [['headers.X-Long', 'too_big']]],
      [{ ...base(), to: 'a@example.test', headers: { From: 'ceo@bank.test' } }, [['headers.From', 'custom']]],
      [{ ...base(), to: 'a@example.test', subscribed: 'yes' }, [['subscribed', 'invalid_type']]],
      [
        { ...base(), to: 'a@example.test', attachments: [{ filename: 'a.txt', content: '***' }] },
        [['attachments.0.content', 'invalid_string']],
      ],
      [
        { ...base(), to: 'a@example.test', attachments: [{ filename: '', content: 'aGk=' }] },
        [['attachments.0.filename', 'too_small']],
      ],
      [
        {
          ...base(),
          to: 'a@example.test',
          attachments: Array.from({ length: 11 }, (_, i) => ({ filename: `${i}.txt`, content: 'aGk=' })),
        },
        [['attachments', 'too_big']],
      ],
    ];
    for (const [body, expected] of cases) {
      const res = await send(body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(fields(res), JSON.stringify(body).slice(0, 200)).toEqual(expected);
    }
    // Nothing of the refused requests was stored.
    expect(
      await h.sql(`select 1 from contacts where project_id = $1 and email = 'a@example.test'`, [p.id]),
    ).toHaveLength(0);
  });

  it('attachments over 10 MB in total are 422, a body over the route limit 413', async () => {
    const five = Buffer.alloc(5.5 * 1024 * 1024, 1).toString('base64');
    const res = await send({
      ...base(),
      to: 'big@example.test',
      attachments: [
        { filename: 'a.bin', content: five },
        { filename: 'b.bin', content: five },
      ],
    });
    expect(res.status).toBe(422);
    expect(fields(res)).toEqual([['attachments', 'too_big']]);
    // Ten attachments of 1 MB each are within the limit.
    const one = Buffer.alloc(1024 * 1024, 2).toString('base64');
    const ok = await send({
      ...base(),
      to: 'big@example.test',
      attachments: Array.from({ length: 10 }, (_, i) => ({ filename: `${i}.bin`, content: one })),
    });
    expect(ok.status).toBe(200);
    expect(
      (
        await h.sql(
          'select count(*)::int as n, sum(length(content))::int as bytes from email_attachments where content_id = (select content_id from emails where id = $1)',
          [ok.body.data.emails[0].email],
        )
      )[0],
    ).toEqual({ n: 10, bytes: 10 * 1024 * 1024 });
    // A whole message over 40 MB.
    const huge = await send({ ...base(), to: 'big@example.test', body: 'x'.repeat(21 * 1024 * 1024) });
    expect(huge.status).toBe(422);
    expect(fields(huge)).toEqual([['body', 'too_big']]);
    const tooLarge = await send({ ...base(), to: 'big@example.test', body: 'x'.repeat(57 * 1024 * 1024) });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses a repeated Idempotency-Key with 409 and details, sending nothing again', async () => {
    const key = `send-${Date.now()}`;
    const first = await send({ ...base(), to: 'idem@example.test' }, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(200);
    const again = await send({ ...base(), to: 'idem@example.test' }, { headers: { 'Idempotency-Key': key } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(again.body.error.details).toMatchObject({
      key,
      originalRequest: { method: 'POST', path: '/v1/send' },
      originalStatusCode: 200,
    });
    expect(
      await h.sql(`select 1 from emails where project_id = $1 and to_email = 'idem@example.test'`, [p.id]),
    ).toHaveLength(1);
  });

  it('401 for the public key or none', async () => {
    expect((await send({ ...base(), to: 'k@example.test' }, { key: p.publicKey })).status).toBe(401);
    const none = await h.request('POST', '/v1/send', { body: { ...base(), to: 'k@example.test' } });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('INVALID_API_KEY');
  });

  it('429 BILLING_LIMIT_EXCEEDED past the monthly transactional cap', async () => {
    const q = await createProject(h);
    const qd = await createVerifiedDomain(h, q.id);
    await h.sql(
      `update projects set billing_limits = '{"transactional": 3, "campaigns": null, "workflows": null}' where id = $1`,
      [q.id],
    );
    const b = { from: `a@${qd.domain}`, subject: 'Hi', body: '<p>Hi</p>' };
    expect((await send({ ...b, to: ['l1@example.test', 'l2@example.test'] }, { key: q.secretKey })).status).toBe(200);
    const over = await send({ ...b, to: ['l3@example.test', 'l4@example.test'] }, { key: q.secretKey });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('BILLING_LIMIT_EXCEEDED');
    expect((await send({ ...b, to: 'l3@example.test' }, { key: q.secretKey })).status).toBe(200);
    expect((await send({ ...b, to: 'l5@example.test' }, { key: q.secretKey })).status).toBe(429);
  });
});
