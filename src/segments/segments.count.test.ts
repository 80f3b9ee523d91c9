import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

// `POST /segments/count`: the builder's live count of an unsaved condition.
describe('segment condition count', () => {
  let h: Harness;
  let p: TestProject;

  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    await h.sql(
      `insert into contacts (id, project_id, email, data)
       select gen_random_uuid(), $1, 'c' || i || '@rcpt.test', jsonb_build_object('plan', case when i % 2 = 0 then 'pro' else 'free' end)
       from generate_series(1, 5) i`,
      [p.id],
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  const count = (condition: unknown) => h.request('POST', '/segments/count', { key: p.secretKey, body: { condition } });

  it('counts the contacts an unsaved condition matches', async () => {
    const r = await count({
      logic: 'AND',
      groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ count: 2 });
    expect((await count({ logic: 'OR', groups: [] })).body).toEqual({ count: 5 });
  });

  it('answers 422 with the path of the wrong filter', async () => {
    const r = await count({
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'data.plan', operator: 'equals', value: 'pro' },
            { field: 'event.purchase', operator: 'greaterThan', value: 3 },
          ],
        },
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body.error.errors.map((e: { field: string }) => e.field)).toContain(
      'condition.groups.0.filters.1.operator',
    );
    expect((await count(undefined)).status).toBe(422);
  });
});
