import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../../test/harness.js';
import { createVerifiedDomain, type TestDomain } from '../../../test/sending-fixtures.js';
import { BODY_MAX_CHARS, SUBJECT_MAX_CHARS } from './content.schema.js';

// Mail content on every save path (templates, campaigns, inline /v1/send): a subject or body that does
// not parse is a 422 naming the field, line and column, and both have size caps. Nothing is stored.
describe('mail content on save', () => {
  let h: Harness;
  let p: TestProject;
  let d: TestDomain;

  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
  });
  afterAll(async () => {
    await h?.close();
  });

  const errorsOf = (res: { status: number; body: Json }) => {
    expect(res.status).toBe(422);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.statusCode).toBe(422);
    return res.body.error.errors as Array<{ field: string; code: string; message: string }>;
  };
  const count = async (table: string) =>
    (await h.sql(`select count(*)::int as n from ${table} where project_id = $1`, [p.id]))[0].n as number;

  // [subject, body, field, line, column, reason]
  const broken: Array<[string, string, string, number, number, string]> = [
    ['Hi', '<p>Hello</p>\n<p>{% if vip %}VIP</p>', 'body', 2, 4, 'tag {% if vip %} not closed'],
    ['Hi', '<p>\n\n  {% sparkle %}</p>', 'body', 3, 3, 'tag "sparkle" not found'],
    ['Hi', '<p>{{ name | shout }}</p>', 'body', 1, 4, 'undefined filter: shout'],
    ['Hi {{ name', '<p>x</p>', 'subject', 1, 4, 'output "{{ name" not closed'],
    // The first shape of the issue: it took 5 minutes to render; now it does not even save.
    ['Hi', '{{a ??' + ' '.repeat(10_000) + 'x', 'body', 1, 1, 'not closed'],
  ];
  const expectBroken = (
    errors: Array<{ field: string; code: string; message: string }>,
    [, , field, line, column, reason]: (typeof broken)[number],
  ) => {
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ field, code: 'invalid_template' });
    expect(errors[0].message).toContain(`line ${line}, column ${column}: `);
    expect(errors[0].message).toContain(reason);
  };

  it('POST and PATCH /templates refuse templates that do not parse', async () => {
    const base = { name: 'T', from: `hi@${d.domain}` };
    for (const c of broken) {
      const res = await h.request('POST', '/templates', {
        key: p.secretKey,
        body: { ...base, subject: c[0], body: c[1] },
      });
      expectBroken(errorsOf(res), c);
    }
    expect(await count('templates')).toBe(0);

    const ok = await h.request('POST', '/templates', {
      key: p.secretKey,
      body: {
        ...base,
        subject: 'Hi {{name ?? "there"}}',
        body: '{% for i in items %}<li>{{ i.title | upcase }}</li>{% endfor %}{{{raw}}}',
      },
    });
    expect(ok.status).toBe(201);
    for (const c of broken) {
      const patch = c[2] === 'subject' ? { subject: c[0] } : { body: c[1] };
      expectBroken(
        errorsOf(await h.request('PATCH', `/templates/${ok.body.id}`, { key: p.secretKey, body: patch })),
        c,
      );
    }
    const after = await h.request('GET', `/templates/${ok.body.id}`, { key: p.secretKey });
    expect(after.body).toEqual(ok.body);
  });

  it('POST and PUT /campaigns refuse campaigns that do not parse', async () => {
    const base = { name: 'C', from: `news@${d.domain}` };
    for (const c of broken) {
      expectBroken(
        errorsOf(
          await h.request('POST', '/campaigns', { key: p.secretKey, body: { ...base, subject: c[0], body: c[1] } }),
        ),
        c,
      );
    }
    expect(await count('campaigns')).toBe(0);
    const ok = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { ...base, subject: 'Hi', body: '{% if a %}A{% else %}B{% endif %}' },
    });
    expect(ok.status).toBe(201);
    for (const c of broken) {
      expectBroken(
        errorsOf(
          await h.request('PUT', `/campaigns/${ok.body.data.id}`, {
            key: p.secretKey,
            body: { ...base, subject: c[0], body: c[1] },
          }),
        ),
        c,
      );
    }
    expect((await h.request('GET', `/campaigns/${ok.body.data.id}`, { key: p.secretKey })).body.body).toBe(
      '{% if a %}A{% else %}B{% endif %}',
    );
  });

  it('/v1/send refuses inline content that does not parse, storing nothing', async () => {
    for (const c of broken) {
      const res = await h.request('POST', '/v1/send', {
        key: p.secretKey,
        body: { to: 'inline@example.test', from: `hi@${d.domain}`, subject: c[0], body: c[1] },
      });
      expectBroken(errorsOf(res), c);
    }
    // Both fields at once, each with its own error.
    const both = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'inline@example.test', from: `hi@${d.domain}`, subject: '{{', body: '{% if %}' },
    });
    expect(errorsOf(both).map((e) => [e.field, e.code])).toEqual([
      ['subject', 'invalid_template'],
      ['body', 'invalid_template'],
    ]);
    expect(await count('emails')).toBe(0);
    expect(await count('contacts')).toBe(0);
  });

  it(`caps subjects at ${SUBJECT_MAX_CHARS} and bodies at ${BODY_MAX_CHARS} characters on every path`, async () => {
    const longBody = '<p>' + 'x'.repeat(BODY_MAX_CHARS - 2);
    const longSubject = 's'.repeat(SUBJECT_MAX_CHARS + 1);
    const paths: Array<[string, string, (s: string, b: string) => Record<string, unknown>]> = [
      ['POST', '/templates', (s, b) => ({ name: 'Big', from: `hi@${d.domain}`, subject: s, body: b })],
      ['POST', '/campaigns', (s, b) => ({ name: 'Big', from: `hi@${d.domain}`, subject: s, body: b })],
      ['POST', '/v1/send', (s, b) => ({ to: 'big@example.test', from: `hi@${d.domain}`, subject: s, body: b })],
    ];
    for (const [method, path, body] of paths) {
      const big = errorsOf(await h.request(method, path, { key: p.secretKey, body: body('Hi', longBody) }));
      expect(
        big.map((e) => [e.field, e.code]),
        path,
      ).toEqual([['body', 'too_big']]);
      const long = errorsOf(await h.request(method, path, { key: p.secretKey, body: body(longSubject, '<p>x</p>') }));
      expect(
        long.map((e) => [e.field, e.code]),
        path,
      ).toEqual([['subject', 'too_big']]);
      // Exactly at the caps is accepted.
      const fits = await h.request(method, path, {
        key: p.secretKey,
        body: body('s'.repeat(SUBJECT_MAX_CHARS), longBody.slice(0, BODY_MAX_CHARS)),
      });
      expect(fits.status, path).toBeLessThan(300);
    }
    const doc = await h.request('GET', '/openapi.json');
    expect(JSON.stringify(doc.body)).toContain(`1..${BODY_MAX_CHARS.toLocaleString('en-US')} characters`);
  });
});
