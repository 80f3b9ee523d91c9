import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

async function verifiedProject(domain = 'mail.example.test'): Promise<TestProject> {
  const p = await createProject(h);
  await h.sql(
    `insert into domains (id, project_id, domain, dkim_selector, dkim_private_key, dkim_public_key, verified)
               values ($1, $2, $3, 'sel', 'priv', 'pub', true)`,
    [randomUUID(), p.id, domain],
  );
  return p;
}

const base = { name: 'Welcome', subject: 'Hello {{name}}', body: '<p>Hi {{name}}</p>', from: 'hi@mail.example.test' };

async function create(p: TestProject, over: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/templates', { key: p.secretKey, body: { ...base, ...over } });
  expect(res.status).toBe(201);
  return res.body;
}

describe('POST /templates', () => {
  it('creates a template on a verified domain with every field and the MARKETING default', async () => {
    const p = await verifiedProject();
    const res = await h.request('POST', '/templates', {
      key: p.secretKey,
      body: { ...base, description: 'internal', fromName: 'Pigeon', replyTo: 'Reply@Example.test' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Welcome',
      description: 'internal',
      subject: 'Hello {{name}}',
      body: '<p>Hi {{name}}</p>',
      from: 'hi@mail.example.test',
      fromName: 'Pigeon',
      replyTo: 'reply@example.test',
      type: 'MARKETING',
      topicId: null,
      projectId: p.id,
    });
    // Plunk's fields, and issue 38's format, blocks (null for HTML) and html (the body as sent).
    expect(res.body).toMatchObject({ format: 'html', blocks: null, html: '<p>Hi {{name}}</p>' });
    expect(Object.keys(res.body).sort()).toEqual([
      'blocks',
      'body',
      'createdAt',
      'description',
      'format',
      'from',
      'fromName',
      'html',
      'id',
      'name',
      'projectId',
      'replyTo',
      'subject',
      'topicId',
      'type',
      'updatedAt',
    ]);
    const [row] = await h.sql('select name, type from templates where id = $1', [res.body.id]);
    expect(row).toEqual({ name: 'Welcome', type: 'MARKETING' });
  });

  it('accepts a subdomain of a verified parent domain', async () => {
    const p = await verifiedProject('example.test');
    const t = await create(p, { from: 'news@letters.example.test', type: 'TRANSACTIONAL' });
    expect(t.type).toBe('TRANSACTIONAL');
  });

  it('answers 400 with the plain {error} body when from is missing', async () => {
    const p = await verifiedProject();
    const { from: _f, ...noFrom } = base;
    const res = await h.request('POST', '/templates', { key: p.secretKey, body: noFrom });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(typeof res.body.error).toBe('string');
  });

  it('answers 403 with code INTERNAL_SERVER_ERROR when the from domain is not verified', async () => {
    const p = await verifiedProject();
    const res = await h.request('POST', '/templates', { key: p.secretKey, body: { ...base, from: 'hi@other.test' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', statusCode: 403 });
    // A pending (unverified) domain row does not count either.
    await h.sql(
      `insert into domains (id, project_id, domain, dkim_selector, dkim_private_key, dkim_public_key, verified)
                 values ($1, $2, 'pending.test', 's', 'k', 'k', false)`,
      [randomUUID(), p.id],
    );
    const pending = await h.request('POST', '/templates', {
      key: p.secretKey,
      body: { ...base, from: 'a@pending.test' },
    });
    expect(pending.status).toBe(403);
    expect(await h.sql('select 1 from templates where project_id = $1', [p.id])).toHaveLength(0);
  });

  it('a domain verified by another project does not count', async () => {
    await verifiedProject('theirs.test');
    const mine = await createProject(h);
    const res = await h.request('POST', '/templates', {
      key: mine.secretKey,
      body: { ...base, from: 'a@theirs.test' },
    });
    expect(res.status).toBe(403);
  });

  it('answers 422 for other schema failures', async () => {
    const p = await verifiedProject();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, name: '' }, 'name'],
      [{ ...base, subject: undefined }, 'subject'],
      [{ ...base, subject: 'a\r\nBcc: x@y.test' }, 'subject'],
      [{ ...base, body: '' }, 'body'],
      [{ ...base, from: 'not-an-email' }, 'from'],
      [{ ...base, replyTo: 'nope' }, 'replyTo'],
      [{ ...base, type: 'BULK' }, 'type'],
    ];
    for (const [body, field] of cases) {
      const res = await h.request('POST', '/templates', { key: p.secretKey, body });
      expect(res.status, field).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });

  it('needs the secret key', async () => {
    const p = await verifiedProject();
    expect((await h.request('POST', '/templates', { key: p.publicKey, body: base })).status).toBe(401);
    expect((await h.request('GET', '/templates')).status).toBe(401);
  });
});

describe('GET, PATCH, duplicate /templates/:id', () => {
  it('reads, patches partially, re-checks a new from, and 404s for other projects and bad ids', async () => {
    const p = await verifiedProject();
    const t = await create(p, { description: 'note', replyTo: 'r@example.test' });
    const got = await h.request('GET', `/templates/${t.id}`, { key: p.secretKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(t);

    h.clock.advance(1000);
    const patched = await h.request('PATCH', `/templates/${t.id}`, {
      key: p.secretKey,
      body: { subject: 'New', replyTo: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      subject: 'New',
      replyTo: null,
      name: 'Welcome',
      description: 'note',
      body: base.body,
    });
    expect(Date.parse(patched.body.updatedAt)).toBeGreaterThan(Date.parse(t.updatedAt));

    const badFrom = await h.request('PATCH', `/templates/${t.id}`, {
      key: p.secretKey,
      body: { from: 'x@unverified.test' },
    });
    expect(badFrom.status).toBe(403);
    expect(badFrom.body.error.code).toBe('INTERNAL_SERVER_ERROR');
    const invalidType = await h.request('PATCH', `/templates/${t.id}`, { key: p.secretKey, body: { type: 'NOPE' } });
    expect(invalidType.status).toBe(422);
    expect((await h.sql('select "from", subject from templates where id = $1', [t.id]))[0]).toEqual({
      from: base.from,
      subject: 'New',
    });

    const other = await verifiedProject();
    for (const [m, path] of [
      ['GET', `/templates/${t.id}`],
      ['PATCH', `/templates/${t.id}`],
      ['DELETE', `/templates/${t.id}`],
      ['POST', `/templates/${t.id}/duplicate`],
      ['GET', `/templates/${t.id}/usage`],
      ['GET', '/templates/not-a-uuid'],
      ['DELETE', '/templates/not-a-uuid'],
      ['GET', `/templates/${randomUUID()}`],
    ] as const) {
      const res = await h.request(m, path, { key: other.secretKey, ...(m === 'PATCH' ? { body: { name: 'x' } } : {}) });
      expect(res.status, `${m} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
    expect((await h.sql('select name from templates where id = $1', [t.id]))[0].name).toBe('Welcome');
  });

  it('duplicates as "<name> (copy)" with a new id', async () => {
    const p = await verifiedProject();
    const t = await create(p, { fromName: 'Sender', type: 'HEADLESS' });
    const res = await h.request('POST', `/templates/${t.id}/duplicate`, { key: p.secretKey });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(t.id);
    expect(res.body).toMatchObject({
      name: 'Welcome (copy)',
      subject: t.subject,
      body: t.body,
      from: t.from,
      fromName: 'Sender',
      type: 'HEADLESS',
    });
    expect(await h.sql('select name from templates where project_id = $1 order by name', [p.id])).toEqual([
      { name: 'Welcome' },
      { name: 'Welcome (copy)' },
    ]);
  });
});

describe('DELETE /templates/:id and usage', () => {
  async function workflowUsing(p: TestProject, templateId: string, enabled: boolean, how: 'column' | 'config') {
    const wf = randomUUID();
    const step = randomUUID();
    await h.sql(
      `insert into workflows (id, project_id, name, enabled, trigger_config) values ($1, $2, $3, $4, '{"eventName":"signup"}')`,
      [wf, p.id, `Flow ${enabled ? 'on' : 'off'} ${how}`, enabled],
    );
    await h.sql(
      `insert into workflow_steps (id, workflow_id, project_id, type, name, config, template_id) values ($1, $2, $3, 'SEND_EMAIL', 'Send welcome', $4, $5)`,
      [step, wf, p.id, how === 'config' ? JSON.stringify({ templateId }) : '{}', how === 'column' ? templateId : null],
    );
    return { wf, step };
  }

  it('deletes an unused template with 204, then 404', async () => {
    const p = await verifiedProject();
    const t = await create(p);
    const res = await h.request('DELETE', `/templates/${t.id}`, { key: p.secretKey });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await h.sql('select 1 from templates where id = $1', [t.id])).toHaveLength(0);
    expect((await h.request('DELETE', `/templates/${t.id}`, { key: p.secretKey })).status).toBe(404);
  });

  it('refuses with 409 while an enabled workflow step uses it (column or config), allows once disabled', async () => {
    const p = await verifiedProject();
    const t = await create(p);
    const byColumn = await workflowUsing(p, t.id, true, 'column');
    const res = await h.request('DELETE', `/templates/${t.id}`, { key: p.secretKey });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.error.details.workflows).toEqual(['Flow on column']);

    await h.sql('update workflows set enabled = false where id = $1', [byColumn.wf]);
    const byConfig = await workflowUsing(p, t.id, true, 'config');
    expect((await h.request('DELETE', `/templates/${t.id}`, { key: p.secretKey })).status).toBe(409);

    const usage = await h.request('GET', `/templates/${t.id}/usage`, { key: p.secretKey });
    expect(usage.status).toBe(200);
    expect(usage.body.campaigns).toEqual([]);
    expect(usage.body.workflows).toHaveLength(2);
    expect(usage.body.workflows).toEqual(
      expect.arrayContaining([
        { id: byColumn.wf, name: 'Flow on column', stepId: byColumn.step, stepName: 'Send welcome', enabled: false },
        { id: byConfig.wf, name: 'Flow on config', stepId: byConfig.step, stepName: 'Send welcome', enabled: true },
      ]),
    );

    await h.sql('update workflows set enabled = false where id = $1', [byConfig.wf]);
    expect((await h.request('DELETE', `/templates/${t.id}`, { key: p.secretKey })).status).toBe(204);
  });

  it('usage of an unused template is empty', async () => {
    const p = await verifiedProject();
    const t = await create(p);
    const usage = await h.request('GET', `/templates/${t.id}/usage`, { key: p.secretKey });
    expect(usage.body).toEqual({ campaigns: [], workflows: [] });
  });
});

describe('GET /templates', () => {
  let p: TestProject;
  const names = ['Alpha', 'bravo', 'Charlie', 'Delta', 'Echo'];
  beforeAll(async () => {
    p = await verifiedProject();
    for (const [i, name] of names.entries()) {
      h.clock.advance(1000);
      await create(p, {
        name,
        type: i % 2 === 0 ? 'MARKETING' : 'TRANSACTIONAL',
        description: i === 3 ? 'Holds the 50%_OFF code' : null,
        subject: i === 4 ? 'Your RECEIPT' : `Subject ${i}`,
      });
    }
  });

  const list = async (qs: string) => {
    const res = await h.request('GET', `/templates${qs}`, { key: p.secretKey });
    return res;
  };

  it('defaults: page 1, pageSize 20, newest first', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, pageSize: 20, total: 5, totalPages: 1 });
    expect(res.body.data.map((t: { name: string }) => t.name)).toEqual([...names].reverse());
  });

  it('pages and clamps pageSize to 100', async () => {
    const res = await list('?page=2&pageSize=2&dir=asc');
    expect(res.body).toMatchObject({ page: 2, pageSize: 2, total: 5, totalPages: 3 });
    expect(res.body.data.map((t: { name: string }) => t.name)).toEqual(['Charlie', 'Delta']);
    expect((await list('?page=3&pageSize=2&dir=asc')).body.data.map((t: { name: string }) => t.name)).toEqual(['Echo']);
    expect((await list('?page=9&pageSize=2')).body).toMatchObject({ data: [], total: 5, totalPages: 3 });
    expect((await list('?pageSize=500')).body.pageSize).toBe(100);
  });

  it('refuses page and pageSize that are not integers >= 1 with 422', async () => {
    for (const qs of ['?page=0', '?page=-1', '?page=abc', '?page=1.5', '?pageSize=0', '?pageSize=x']) {
      const res = await list(qs);
      expect(res.status, qs).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('sorts by name, updatedAt, createdAt; unknown sort and dir fall back to createdAt desc', async () => {
    expect((await list('?sort=name&dir=asc')).body.data.map((t: { name: string }) => t.name)).toEqual([
      'Alpha',
      'bravo',
      'Charlie',
      'Delta',
      'Echo',
    ]);
    const first = (await list('?sort=createdAt&dir=asc')).body.data[0];
    await h.request('PATCH', `/templates/${first.id}`, { key: p.secretKey, body: { description: 'touched' } });
    expect((await list('?sort=updatedAt')).body.data[0].name).toBe('Alpha');
    expect((await list('?sort=bogus&dir=sideways')).body.data.map((t: { name: string }) => t.name)).toEqual(
      [...names].reverse(),
    );
  });

  it('filters by type and searches name, description and subject case-insensitively', async () => {
    const tx = await list('?type=TRANSACTIONAL&sort=name&dir=asc');
    expect(tx.body.data.map((t: { name: string }) => t.name)).toEqual(['bravo', 'Delta']);
    expect(tx.body.total).toBe(2);
    expect((await list('?type=WRONG')).status).toBe(422);
    expect((await list('?search=BRAV')).body.data.map((t: { name: string }) => t.name)).toEqual(['bravo']);
    expect((await list('?search=receipt')).body.data.map((t: { name: string }) => t.name)).toEqual(['Echo']);
    expect(
      (await list(`?search=${encodeURIComponent('50%_off')}`)).body.data.map((t: { name: string }) => t.name),
    ).toEqual(['Delta']);
    // % and _ are literal characters, not wildcards.
    expect((await list(`?search=${encodeURIComponent('%')}`)).body.total).toBe(1);
    expect((await list('?search=nothing-matches')).body).toMatchObject({ data: [], total: 0, totalPages: 0 });
  });

  it("lists only the project's own templates", async () => {
    const other = await verifiedProject();
    expect((await h.request('GET', '/templates', { key: other.secretKey })).body.total).toBe(0);
  });
});

describe('OpenAPI', () => {
  it('documents the template, event, activity, analytics and upload routes', async () => {
    const spec = await h.request('GET', '/openapi.json');
    expect(spec.status).toBe(200);
    expect(Object.keys(spec.body.paths)).toEqual(
      expect.arrayContaining([
        '/templates',
        '/templates/{id}',
        '/templates/{id}/duplicate',
        '/templates/{id}/usage',
        '/events',
        '/events/stats',
        '/events/names',
        '/events/contact/{contactId}',
        '/events/{eventName}/usage',
        '/events/{eventName}',
        '/activity',
        '/activity/stats',
        '/activity/recent-count',
        '/activity/types',
        '/activity/upcoming',
        '/analytics/timeseries',
        '/analytics/top-campaigns',
        '/analytics/campaign-stats',
        '/analytics/top-events',
        '/uploads/image',
        '/uploads/{projectId}/{file}',
      ]),
    );
    expect(spec.body.paths['/templates'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['page', 'pageSize', 'type', 'search', 'sort', 'dir']),
    );
  });
});
