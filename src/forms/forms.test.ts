import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';

// The /forms API (issue 35): create, list, read, change and delete forms; the rules of their fields,
// topics, template and sender; roles; a topic a form joins cannot be deleted.
describe('/forms', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  const topic = async (p: TestProject, name: string) => {
    const res = await h.request('POST', '/topics', { key: p.secretKey, body: { name, default: 'opt-in' } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const create = (p: TestProject, body: Record<string, unknown>) =>
    h.request('POST', '/forms', { key: p.secretKey, body });
  const formRows = (p: TestProject) => h.sql('select id from forms where project_id = $1', [p.id]);

  it('creates a form with an email field by default, lists, reads, changes and deletes it', async () => {
    const p = await createProject(h);
    const news = await topic(p, 'News');
    const res = await create(p, { name: 'Newsletter', topics: ['news'] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Newsletter',
      topics: [news],
      doubleOptIn: false,
      fields: [{ key: 'email', label: 'Email', type: 'email', required: true }],
      redirectUrl: null,
      successMessage: 'Thanks for signing up!',
      confirmationTemplateId: null,
      from: null,
      fromName: null,
      submissions: 0,
      confirmations: 0,
      url: `${h.url}/f/${res.body.id}`,
      embedHtml: expect.stringContaining(`action="${h.url}/f/${res.body.id}"`),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = res.body.id as string;
    const second = await create(p, { name: 'Beta list' });
    const list = await h.request('GET', '/forms', { key: p.secretKey });
    expect(list.status).toBe(200);
    expect(list.body.map((f: { name: string }) => f.name)).toEqual(['Beta list', 'Newsletter']);
    expect((await h.request('GET', `/forms/${id}`, { key: p.secretKey })).body.name).toBe('Newsletter');

    const digest = await topic(p, 'Digest');
    const patched = await h.request('PATCH', `/forms/${id}`, {
      key: p.secretKey,
      body: {
        name: 'Monthly newsletter',
        topics: [news, digest],
        fields: [
          { key: 'firstName', label: 'First name', type: 'text', required: true },
          { key: 'email', label: 'Email', type: 'email', required: true },
          { key: 'team', label: 'Team size', type: 'select', options: ['1', '2-10', '11+'] },
        ],
        redirectUrl: 'https://example.com/welcome',
        successMessage: 'Welcome!',
      },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Monthly newsletter',
      topics: [digest, news],
      redirectUrl: 'https://example.com/welcome',
      successMessage: 'Welcome!',
    });
    expect(patched.body.fields.map((f: { key: string }) => f.key)).toEqual(['firstName', 'email', 'team']);
    // The embed snippet follows the fields, in their order.
    expect(patched.body.embedHtml.indexOf('name="firstName"')).toBeLessThan(
      patched.body.embedHtml.indexOf('name="email"'),
    );
    const cleared = await h.request('PATCH', `/forms/${id}`, {
      key: p.secretKey,
      body: { redirectUrl: null, topics: [] },
    });
    expect(cleared.body).toMatchObject({ redirectUrl: null, topics: [], name: 'Monthly newsletter' });

    expect((await h.request('DELETE', `/forms/${id}`, { key: p.secretKey })).status).toBe(204);
    expect((await h.request('GET', `/forms/${id}`, { key: p.secretKey })).status).toBe(404);
    expect((await h.request('DELETE', `/forms/${id}`, { key: p.secretKey })).status).toBe(404);
    expect((await h.request('GET', '/forms/not-an-id', { key: p.secretKey })).status).toBe(404);
    // Another project's form is unknown here.
    const other = await createProject(h);
    expect((await h.request('GET', `/forms/${second.body.id}`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('DELETE', `/forms/${second.body.id}`, { key: other.secretKey })).status).toBe(404);
  });

  it('refuses fields without exactly one email field, duplicate or reserved keys, a select without options', async () => {
    const p = await createProject(h);
    const cases: Array<[unknown[], string]> = [
      [[{ key: 'name', label: 'Name', type: 'text' }], 'A form needs a field of type email with key "email"'],
      [
        [
          { key: 'email', label: 'Email', type: 'email' },
          { key: 'email2', label: 'Again', type: 'email' },
        ],
        'The email field has the key "email"',
      ],
      [[{ key: 'mail', label: 'Email', type: 'email' }], 'The email field has the key "email"'],
      [
        [
          { key: 'email', label: 'Email', type: 'email' },
          { key: 'Name', label: 'A', type: 'text' },
          { key: 'name', label: 'B', type: 'text' },
        ],
        'Two fields have the key "name"',
      ],
      [
        [
          { key: 'email', label: 'Email', type: 'email' },
          { key: 'manageUrl', label: 'X', type: 'text' },
        ],
        '"manageUrl" is reserved; pick another key',
      ],
      [
        [
          { key: 'email', label: 'Email', type: 'email' },
          { key: 'plan', label: 'Plan', type: 'select' },
        ],
        'A select field needs at least one option',
      ],
      [
        [
          { key: 'email', label: 'Email', type: 'email' },
          { key: '_hp', label: 'Trap', type: 'text' },
        ],
        'Keys are letters, digits and _, start with a letter, 64 at most',
      ],
    ];
    for (const [fields, message] of cases) {
      const res = await create(p, { name: 'F', fields });
      expect(res.status, JSON.stringify(fields)).toBe(422);
      expect(res.body.error.errors.map((e: { message: string }) => e.message)).toContain(message);
    }
    const badUrl = await create(p, { name: 'F', redirectUrl: 'javascript:alert(1)' });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.error.errors[0]).toMatchObject({ field: 'redirectUrl' });
    expect(await formRows(p)).toEqual([]);
  });

  it("refuses another project's topic or template, and double opt-in without a verified sender", async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const theirs = await topic(other, 'Theirs');
    const unknownTopic = await create(p, { name: 'F', topics: [theirs] });
    expect(unknownTopic.status).toBe(422);
    expect(unknownTopic.body.error.message).toBe(`No topic "${theirs}" in this project`);
    const d = await createVerifiedDomain(h, p.id);
    const od = await createVerifiedDomain(h, other.id);
    const t = await h.request('POST', '/templates', {
      key: other.secretKey,
      body: { name: 'T', subject: 'S', body: '{{confirmUrl}}', from: `a@${od.domain}`, type: 'TRANSACTIONAL' },
    });
    const unknownTemplate = await create(p, { name: 'F', confirmationTemplateId: t.body.id });
    expect(unknownTemplate.status).toBe(422);
    expect(unknownTemplate.body.error.errors[0]).toMatchObject({
      field: 'confirmationTemplateId',
      code: 'unknown_template',
    });

    const noFrom = await create(p, { name: 'F', doubleOptIn: true });
    expect(noFrom.status).toBe(422);
    expect(noFrom.body.error.errors[0]).toMatchObject({ field: 'from', code: 'required' });
    const unverified = await create(p, { name: 'F', doubleOptIn: true, from: 'me@unverified.example' });
    expect(unverified.status).toBe(422);
    expect(unverified.body.error).toMatchObject({
      message:
        'The domain unverified.example of "from" is not verified for this project: add and verify it under Domains first',
      errors: [{ field: 'from', code: 'unverified_domain' }],
    });
    expect(await formRows(p)).toEqual([]);

    const ok = await create(p, { name: 'F', doubleOptIn: true, from: `Me@news.${d.domain}`, fromName: 'Me' });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({ doubleOptIn: true, from: `me@news.${d.domain}`, fromName: 'Me' });
    // Turning the sender off again while double opt-in is on is refused; the form stays as it was.
    const cleared = await h.request('PATCH', `/forms/${ok.body.id}`, { key: p.secretKey, body: { from: null } });
    expect(cleared.status).toBe(422);
    expect((await h.request('GET', `/forms/${ok.body.id}`, { key: p.secretKey })).body.from).toBe(
      `me@news.${d.domain}`,
    );
    const off = await h.request('PATCH', `/forms/${ok.body.id}`, {
      key: p.secretKey,
      body: { doubleOptIn: false, from: null },
    });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ doubleOptIn: false, from: null });
  });

  it('lets a MEMBER read forms but not change them; a topic a form joins cannot be deleted', async () => {
    const p = await createProject(h, await createVerifiedUser(h));
    const member = await createVerifiedUser(h);
    const added = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: member.email, role: 'MEMBER' },
    });
    expect(added.status).toBe(201);
    const news = await topic(p, 'News');
    const f = await create(p, { name: 'Signup', topics: [news] });
    const asMember = { cookie: member.cookie, headers: { 'x-project-id': p.id } };
    expect((await h.request('GET', '/forms', asMember)).status).toBe(200);
    const denied = await h.request('POST', '/forms', { ...asMember, body: { name: 'Mine' } });
    expect(denied.status).toBe(403);
    expect((await h.request('DELETE', `/forms/${f.body.id}`, asMember)).status).toBe(403);
    expect(await formRows(p)).toHaveLength(1);

    const del = await h.request('DELETE', `/topics/${news}`, { key: p.secretKey });
    expect(del.status).toBe(409);
    expect(del.body.error.message).toBe('The topic is used by the form "Signup"');
    expect(del.body.error.details.forms).toEqual([{ id: f.body.id, name: 'Signup' }]);
    expect((await h.request('DELETE', `/forms/${f.body.id}`, { key: p.secretKey })).status).toBe(204);
    expect((await h.request('DELETE', `/topics/${news}`, { key: p.secretKey })).status).toBe(204);
  });
});
