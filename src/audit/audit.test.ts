import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

async function verifiedProject(): Promise<TestProject> {
  const p = await createProject(h);
  await h.sql(
    `insert into domains (id, project_id, domain, dkim_selector, dkim_private_key, dkim_public_key, verified)
               values ($1, $2, 'mail.example.test', 'sel', 'priv', 'pub', true)`,
    [randomUUID(), p.id],
  );
  return p;
}

/** The project's audit rows, oldest first. */
async function entries(p: TestProject): Promise<Json[]> {
  return h.sql('select * from audit_log where project_id = $1 order by at, id', [p.id]);
}

describe('template', () => {
  it('session and key', async () => {
    const p = await verifiedProject();
    const res = await h.request('POST', '/templates', {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
      body: { name: 'A', subject: 'S', body: '<p>x</p>', from: 'a@mail.example.test' },
    });
    expect(res.status).toBe(201);
    const up = await h.request('PATCH', `/templates/${res.body.id}`, { key: p.secretKey, body: { name: 'B' } });
    expect(up.status).toBe(200);
    console.log(await entries(p));
  });
});
