import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createTemplate, createVerifiedDomain, eventually, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';

let h: Harness;
let sink: SmtpSink;
let p: TestProject;
let domain: TestDomain;
const session = (project: TestProject) => ({ cookie: project.owner.cookie, headers: { 'x-project-id': project.id } });

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await createHarness({ env: { SMTP_URL: sink.url }, worker: true });
  p = await createProject(h);
  domain = await createVerifiedDomain(h, p.id);
});
afterAll(async () => {
  await h.close();
  await sink.close();
});

describe('POST /templates/preview', () => {
  it("renders subject and body with the picked contact's data, escaped, with the MARKETING footer and no tracking", async () => {
    const c = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'ada@rcpt.test', data: { name: 'Ada <3', plan: 'pro' } },
    });
    expect(c.status).toBeLessThan(300);
    const res = await h.request('POST', '/templates/preview', {
      ...session(p),
      body: {
        subject: 'Hi {{name}}',
        body: '<p>Hello {{name}} on {{plan ?? "free"}}</p><a href="https://x.test/a">a</a>',
        contactId: c.body.id,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.subject).toBe('Hi Ada <3');
    expect(res.body.html).toContain('<p>Hello Ada &lt;3 on pro</p>');
    expect(res.body.html).toContain('Unsubscribe');
    expect(res.body.html).toContain('href="https://x.test/a"');
    expect(res.body.html).not.toContain('/t/o/');
  });

  it('without a contact, falls back; TRANSACTIONAL mail gets no footer', async () => {
    const res = await h.request('POST', '/templates/preview', {
      ...session(p),
      body: { subject: 'Hi {{name ?? "there"}}', body: '<p>{{email}}</p>', type: 'TRANSACTIONAL' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subject: 'Hi there', html: '<p>contact@example.com</p>', unknownVariables: [] });
  });

  it('names the variables that match nothing in the sample contact or the reserved set, with the likely meant name', async () => {
    const c = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'vars@rcpt.test', data: { firstName: 'Vi', 'user.name': 'vi' } },
    });
    const res = await h.request('POST', '/templates/preview', {
      ...session(p),
      body: {
        subject: '{{ firstname }} {{ plan | upcase }}',
        body: [
          '<a href="{{unsubscribe_url}}">out</a> {{firstName}} {{contact.firstName}} {{email}} {{manageUrl}}',
          '{% for item in items %}{{ item.name }}{{item.price}}{% endfor %}',
          '{% assign greeting = "hi" %}{{ greeting }} {{ nickname ?? "friend" }} {{user.name}}',
        ].join('\n'),
        contactId: c.body.id,
      },
    });
    expect(res.status).toBe(200);
    // Loop and assigned names, Plunk forms with a fallback, and the contact's own keys are not reported.
    expect(res.body.unknownVariables).toEqual([
      { name: 'firstname', suggestion: 'firstName' },
      { name: 'plan', suggestion: null },
      { name: 'unsubscribe_url', suggestion: 'unsubscribeUrl' },
      { name: 'items', suggestion: null },
    ]);
    expect(res.body.reservedVariables.map((r: { name: string }) => r.name)).toEqual([
      'email',
      'contact',
      'unsubscribeUrl',
      'subscribeUrl',
      'manageUrl',
    ]);
    expect(res.body.reservedVariables[2].description).toMatch(/unsubscribes/);
  });

  it('answers 422 invalid_template naming the field, line and column', async () => {
    const res = await h.request('POST', '/templates/preview', {
      ...session(p),
      body: { subject: 'ok', body: '<p>\n  {{ name </p>' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'body', code: 'invalid_template' })]);
    expect(res.body.error.details).toMatchObject({ field: 'body', line: 2, column: expect.any(Number) });
    expect(res.body.error.errors[0].message).toMatch(/line 2, column \d+/);
  });

  it("answers 404 for another project's contact", async () => {
    const other = await createProject(h);
    const c = await h.request('POST', '/contacts', { key: other.secretKey, body: { email: 'x@rcpt.test' } });
    const res = await h.request('POST', '/templates/preview', {
      ...session(p),
      body: { subject: 's', body: 'b', contactId: c.body.id },
    });
    expect(res.status).toBe(404);
  });
});

describe('POST /templates/:id/test', () => {
  it('sends the template to the signed-in user, rendered for that address, and the SMTP sink receives it', async () => {
    const id = await createTemplate(h, p.id, {
      subject: 'Welcome {{email}}',
      body: '<p>Your address: {{email}}</p>',
      from: `hello@${domain.domain}`,
      type: 'TRANSACTIONAL',
    });
    const res = await h.request('POST', `/templates/${id}/test`, session(p));
    expect(res.status).toBe(200);
    const to = p.owner.email;
    expect(res.body).toMatchObject({ success: true, data: { email: to, templateId: id } });
    const [m] = await eventually(
      async () => {
        const l = sink.to(to).filter((x) => /Welcome/.test(x.parsed.subject ?? ''));
        return l.length ? l : undefined;
      },
      20_000,
      'test mail',
    );
    expect(m.parsed.subject).toBe(`[TEST] Welcome ${to}`);
    expect(m.parsed.html).toContain(`Your address: ${to}`);
    expect(m.parsed.from?.value[0].address).toBe(`hello@${domain.domain}`);
    expect(m.parsed.headers.get('x-pigeon-test')).toBe('true');
    expect(await h.sql('select source_type, template_id from emails where id = $1', [res.body.data.id])).toEqual([
      { source_type: 'TEST', template_id: null },
    ]);
  });

  it("renders the sample contact's data (else the user's own contact's) and adds no contact to the project", async () => {
    const q = await createProject(h);
    const d = await createVerifiedDomain(h, q.id);
    const id = await createTemplate(h, q.id, {
      subject: 'Plan {{plan ?? "none"}}',
      body: '<p>Hi {{firstName ?? "nobody"}} ({{contact.plan}}), sent to {{email}}</p>',
      from: `hello@${d.domain}`,
      type: 'TRANSACTIONAL',
    });
    const sample = await h.request('POST', '/contacts', {
      key: q.secretKey,
      body: { email: 'sample@rcpt.test', data: { firstName: 'Grace', plan: 'pro' } },
    });
    const to = q.owner.email;
    const contactsOf = () => h.sql('select email, data from contacts where project_id = $1 order by email', [q.id]);
    const before = await contactsOf();
    const mailWith = (subject: string) =>
      eventually(async () => sink.to(to).find((x) => x.parsed.subject === subject), 20_000, `test mail "${subject}"`);

    const withSample = await h.request('POST', `/templates/${id}/test`, {
      ...session(q),
      body: { contactId: sample.body.id },
    });
    expect(withSample.status).toBe(200);
    expect(withSample.body.data.email).toBe(to);
    const m = await mailWith('[TEST] Plan pro');
    expect(m.parsed.html).toContain(`Hi Grace (pro), sent to ${to}`);

    // No sample: no contact has the owner's address, so no data; still no contact row.
    expect((await h.request('POST', `/templates/${id}/test`, session(q))).status).toBe(200);
    expect((await mailWith('[TEST] Plan none')).parsed.html).toContain(`Hi nobody (), sent to ${to}`);
    expect(await contactsOf()).toEqual(before);
    // The mail reaches the sink before its row records the relay's answer: wait for the row.
    const rows = await eventually(
      async () => {
        const r = await h.sql('select contact_id, status from emails where project_id = $1 and source_type = $2', [
          q.id,
          'TEST',
        ]);
        return r.every((x) => x.status !== 'SENDING' && x.status !== 'PENDING') ? r : null;
      },
      15_000,
      'both test mails recorded',
    );
    expect(rows).toEqual([
      { contact_id: null, status: expect.stringMatching(/SENT|DELIVERED/) },
      { contact_id: null, status: expect.stringMatching(/SENT|DELIVERED/) },
    ]);

    // The owner is a contact of the project: their own data fills the test, and their row is left as it was.
    await h.request('POST', '/contacts', {
      key: q.secretKey,
      body: { email: to, data: { firstName: 'Owner', plan: 'team' } },
    });
    const withOwn = await contactsOf();
    expect((await h.request('POST', `/templates/${id}/test`, session(q))).status).toBe(200);
    expect((await mailWith('[TEST] Plan team')).parsed.html).toContain(`Hi Owner (team), sent to ${to}`);
    expect(await contactsOf()).toEqual(withOwn);

    // Another project's contact is no sample.
    const other = await createProject(h);
    const foreign = await h.request('POST', '/contacts', { key: other.secretKey, body: { email: 'f@rcpt.test' } });
    const r = await h.request('POST', `/templates/${id}/test`, { ...session(q), body: { contactId: foreign.body.id } });
    expect(r.status).toBe(404);
  });

  it("answers 403 when the template's sender domain is no longer verified, and 400 with an API key", async () => {
    const id = await createTemplate(h, p.id, { subject: 's', body: 'b', from: 'x@unverified.test' });
    const res = await h.request('POST', `/templates/${id}/test`, session(p));
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/not verified/);
    expect((await h.request('POST', `/templates/${id}/test`, { key: p.secretKey })).status).toBe(400);
  });
});
