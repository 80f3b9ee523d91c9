import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

describe('contact fields', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  const add = (p: TestProject, email: string, data: Record<string, unknown>) =>
    h.request('POST', '/contacts', { key: p.secretKey, body: { email, data } });

  it('lists standard and custom fields with types inferred in SQL and coverage in percent', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    await add(other, 'x@example.test', { secret: 'other project' });
    await add(p, 'a@example.test', {
      plan: 'pro',
      seats: 3,
      vip: true,
      signup: '2025-01-31',
      seen: '2025-01-31T10:00:00.000Z',
    });
    await add(p, 'b@example.test', { plan: 'free', seats: 1.5 });
    await add(p, 'c@example.test', { plan: 'free' });
    await h.sql(
      `update contacts set data = data || '{"address": {"city": "Oslo"}}' where email = 'c@example.test' and project_id = $1`,
      [p.id],
    );
    await add(p, 'd@example.test', {});
    const res = await h.request('GET', '/contacts/fields', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { field: 'email', type: 'string', coverage: 100, standard: true },
      { field: 'subscribed', type: 'boolean', coverage: 100, standard: true },
      { field: 'createdAt', type: 'date', coverage: 100, standard: true },
      { field: 'updatedAt', type: 'date', coverage: 100, standard: true },
      { field: 'address', type: 'object', coverage: 25, standard: false },
      { field: 'plan', type: 'string', coverage: 75, standard: false },
      { field: 'seats', type: 'number', coverage: 50, standard: false },
      { field: 'seen', type: 'date', coverage: 25, standard: false },
      { field: 'signup', type: 'date', coverage: 25, standard: false },
      { field: 'vip', type: 'boolean', coverage: 25, standard: false },
    ]);
    const empty = await createProject(h);
    expect((await h.request('GET', '/contacts/fields', { key: empty.secretKey })).body).toEqual([
      { field: 'email', type: 'string', coverage: 0, standard: true },
      { field: 'subscribed', type: 'boolean', coverage: 0, standard: true },
      { field: 'createdAt', type: 'date', coverage: 0, standard: true },
      { field: 'updatedAt', type: 'date', coverage: 0, standard: true },
    ]);
  });

  it('lists distinct values with counts, most common first, typed', async () => {
    const p = await createProject(h);
    await add(p, 'a@example.test', { plan: 'free', n: 1 });
    await add(p, 'b@example.test', { plan: 'free', n: 1 });
    await add(p, 'c@example.test', { plan: 'pro', n: 2 });
    await add(p, 'd@example.test', {});
    const res = await h.request('GET', '/contacts/fields/plan/values', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      field: 'plan',
      values: [
        { value: 'free', count: 2 },
        { value: 'pro', count: 1 },
      ],
    });
    const n = await h.request('GET', '/contacts/fields/data.n/values', { key: p.secretKey });
    expect(n.body).toEqual({
      field: 'n',
      values: [
        { value: 1, count: 2 },
        { value: 2, count: 1 },
      ],
    });
    expect((await h.request('GET', '/contacts/fields/nothing/values', { key: p.secretKey })).body).toEqual({
      field: 'nothing',
      values: [],
    });
  });

  it('caps values at 100', async () => {
    const p = await createProject(h);
    await h.sql(
      `insert into contacts (id, project_id, email, data)
      select gen_random_uuid(), $1, 'v' || i || '@example.test', jsonb_build_object('code', 'k' || i) from generate_series(1, 150) i`,
      [p.id],
    );
    const res = await h.request('GET', '/contacts/fields/code/values', { key: p.secretKey });
    expect(res.body.values).toHaveLength(100);
  });

  it('finds where a field is used: segments, campaigns, templates, workflows', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const cond = (field: string) =>
      JSON.stringify({ logic: 'AND', groups: [{ filters: [{ field, operator: 'equals', value: 'pro' }] }] });
    const ins = async (table: string, cols: string, vals: unknown[], project = p) => {
      const id = crypto.randomUUID();
      const ph = vals.map((_, i) => `$${i + 3}`).join(', ');
      await h.sql(`insert into ${table} (id, project_id, ${cols}) values ($1, $2, ${ph})`, [id, project.id, ...vals]);
      return id;
    };
    const seg = await ins('segments', 'name, condition', ['Pro users', cond('data.plan')]);
    await ins('segments', 'name, condition', ['Planet', cond('data.planet')]);
    await ins('segments', 'name, condition', ['Other project', cond('data.plan')], other);
    const camp1 = await ins('campaigns', 'name, subject, body, "from", audience_type, audience_condition', [
      'Audience',
      'Hi',
      '<p>x</p>',
      'a@example.test',
      'FILTERED',
      cond('data.plan'),
    ]);
    const camp2 = await ins('campaigns', 'name, subject, body, "from"', [
      'Body',
      'Your {{ plan }} plan',
      '<p>x</p>',
      'a@example.test',
    ]);
    await ins('campaigns', 'name, subject, body, "from"', [
      'Not it',
      'Your {{planet}}',
      '<p>{{ plans }}</p>',
      'a@example.test',
    ]);
    const tpl1 = await ins('templates', 'name, subject, body, "from"', [
      'T1',
      'Hello',
      `<p>{{plan ?? 'free'}}</p>`,
      'a@example.test',
    ]);
    const tpl2 = await ins('templates', 'name, subject, body, "from"', [
      'T2',
      'Hello',
      '<p>{{{plan}}}</p>',
      'a@example.test',
    ]);
    await ins('templates', 'name, subject, body, "from"', ['T3', 'Hello', '<p>{{name}} plan</p>', 'a@example.test']);
    const wf1 = await ins('workflows', 'name', ['Condition']);
    const wf2 = await ins('workflows', 'name', ['Updater']);
    const wf3 = await ins('workflows', 'name', ['Unrelated']);
    const step = (wf: string, type: string, config: unknown) =>
      h.sql(
        `insert into workflow_steps (id, workflow_id, project_id, type, name, config) values (gen_random_uuid(), $1, $2, $3, $3, $4)`,
        [wf, p.id, type, JSON.stringify(config)],
      );
    await step(wf1, 'CONDITION', { field: 'data.plan', operator: 'equals', value: 'pro' });
    await step(wf1, 'EXIT', {});
    await step(wf2, 'UPDATE_CONTACT', { updates: { plan: 'pro' } });
    await step(wf3, 'UPDATE_CONTACT', { updates: { planet: 'mars' } });

    const res = await h.request('GET', '/contacts/fields/plan/usage', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      field: 'plan',
      segments: [{ id: seg, name: 'Pro users' }],
      campaigns: expect.arrayContaining([
        { id: camp1, name: 'Audience' },
        { id: camp2, name: 'Body' },
      ]),
      templates: expect.arrayContaining([
        { id: tpl1, name: 'T1' },
        { id: tpl2, name: 'T2' },
      ]),
      workflows: expect.arrayContaining([
        { id: wf1, name: 'Condition' },
        { id: wf2, name: 'Updater' },
      ]),
    });
    expect(res.body.campaigns).toHaveLength(2);
    expect(res.body.templates).toHaveLength(2);
    expect(res.body.workflows).toHaveLength(2);
    const none = await h.request('GET', '/contacts/fields/zzz/usage', { key: p.secretKey });
    expect(none.body).toEqual({ field: 'zzz', segments: [], campaigns: [], templates: [], workflows: [] });
    // Regex characters in a field name are literal.
    expect(
      (await h.request('GET', `/contacts/fields/${encodeURIComponent('pl.n')}/usage`, { key: p.secretKey })).body
        .templates,
    ).toEqual([]);
  });

  it('deletes a field from every contact of the project only; refuses standard fields', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    await add(p, 'a@example.test', { plan: 'pro', keep: 1 });
    await add(p, 'b@example.test', { plan: 'free' });
    await add(other, 'a@example.test', { plan: 'pro' });
    const res = await h.request('DELETE', '/contacts/fields/plan', { key: p.secretKey });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await h.sql('select email, data from contacts where project_id = $1 order by email', [p.id])).toEqual([
      { email: 'a@example.test', data: { keep: 1 } },
      { email: 'b@example.test', data: {} },
    ]);
    expect((await h.sql('select data from contacts where project_id = $1', [other.id]))[0].data).toEqual({
      plan: 'pro',
    });
    for (const f of ['email', 'subscribed', 'createdAt', 'updatedAt']) {
      const r = await h.request('DELETE', `/contacts/fields/${f}`, { key: p.secretKey });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('BAD_REQUEST');
    }
    expect((await h.request('DELETE', '/contacts/fields/never', { key: p.secretKey })).status).toBe(204);
  });
});
