import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { newId } from '../lib/ids.js';

describe('bulk contact actions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(async () => h.close());

  async function seed(p: TestProject, n: number, subscribed: (i: number) => boolean) {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = newId();
      ids.push(id);
      await h.sql('insert into contacts (id, project_id, email, subscribed) values ($1, $2, $3, $4)', [
        id,
        p.id,
        `b${i}@example.test`,
        subscribed(i),
      ]);
    }
    return ids;
  }

  async function run(p: TestProject, action: string, contactIds: string[]) {
    const res = await h.request('POST', `/contacts/${action}`, { key: p.secretKey, body: { contactIds } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ jobId: expect.any(String) });
    for (let i = 0; i < 300; i++) {
      const s = await h.request('GET', `/contacts/bulk/${res.body.jobId}`, { key: p.secretKey });
      expect(s.status).toBe(200);
      if (s.body.state === 'completed' || s.body.state === 'failed')
        return { jobId: res.body.jobId as string, ...s.body };
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('bulk job did not finish');
  }

  const events = (p: TestProject) =>
    h.sql<{ name: string; contact_id: string }>(
      'select name, contact_id from events where project_id = $1 order by contact_id',
      [p.id],
    );

  it('unsubscribes set-based and emits only for contacts whose state changed', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const ids = await seed(p, 6, (i) => i < 4);
    const [foreign] = await seed(other, 1, () => true);
    const missing = newId();
    const job = await run(p, 'bulk-unsubscribe', [...ids, ids[0], foreign, missing]);
    expect(job).toMatchObject({ state: 'completed', progress: 100, failedReason: null });
    expect(job.result).toEqual({
      processed: 8,
      created: 0,
      updated: 4,
      skipped: 2,
      failed: 2,
      errors: expect.arrayContaining([
        { id: foreign, message: 'Contact not found' },
        { id: missing, message: 'Contact not found' },
      ]),
    });
    const rows = await h.sql('select id, subscribed from contacts where project_id = $1', [p.id]);
    expect(rows.every((r) => r.subscribed === false)).toBe(true);
    expect(await events(p)).toEqual(
      ids
        .slice(0, 4)
        .sort()
        .map((id) => ({ name: 'contact.unsubscribed', contact_id: id })),
    );
    // The other project's contact is untouched.
    expect((await h.sql('select subscribed from contacts where id = $1', [foreign]))[0].subscribed).toBe(true);
    expect(await events(other)).toEqual([]);
  });

  it('subscribes and emits contact.subscribed for the changed ones', async () => {
    const p = await createProject(h);
    const ids = await seed(p, 5, (i) => i % 2 === 0);
    const job = await run(p, 'bulk-subscribe', ids);
    expect(job.result).toMatchObject({ processed: 5, updated: 2, skipped: 3, failed: 0, errors: [] });
    expect(await events(p)).toEqual(
      [ids[1], ids[3]].sort().map((id) => ({ name: 'contact.subscribed', contact_id: id })),
    );
    expect(
      (await h.sql('select count(*)::int as n from contacts where project_id = $1 and subscribed', [p.id]))[0].n,
    ).toBe(5);
  });

  it("deletes only the project's contacts", async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const ids = await seed(p, 4, () => true);
    const [foreign] = await seed(other, 1, () => true);
    const job = await run(p, 'bulk-delete', [ids[0], ids[1], foreign]);
    expect(job.result).toMatchObject({
      processed: 3,
      updated: 2,
      deleted: 2,
      failed: 1,
      errors: [{ id: foreign, message: 'Contact not found' }],
    });
    expect((await h.sql('select id from contacts where project_id = $1 order by id', [p.id])).map((r) => r.id)).toEqual(
      [ids[2], ids[3]].sort(),
    );
    expect(await h.sql('select 1 from contacts where id = $1', [foreign])).toHaveLength(1);
  });

  it('does the work once even when the job runs twice', async () => {
    const p = await createProject(h);
    const ids = await seed(p, 2, () => true);
    const job = await run(p, 'bulk-unsubscribe', ids);
    await h.sql(`select graphile_worker.add_job('contacts:bulk', json_build_object('jobId', $1::text))`, [job.jobId]);
    // Wait until the queue has run it (Graphile deletes a job that succeeded).
    for (let i = 0; i < 100; i++) {
      const [{ n }] = await h.sql(`select count(*)::int as n from ${JOBS} j where task_identifier = 'contacts:bulk'`);
      if (n === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await h.sql(`select count(*)::int as n from ${JOBS} j where task_identifier = 'contacts:bulk'`))[0].n).toBe(
      0,
    );
    expect(await events(p)).toHaveLength(2);
    const s = await h.request('GET', `/contacts/bulk/${job.jobId}`, { key: p.secretKey });
    expect(s.body.result.updated).toBe(2);
  });

  it('validates 1..1000 uuids with 422', async () => {
    const p = await createProject(h);
    for (const contactIds of [[], ['nope'], Array.from({ length: 1001 }, () => newId()), 'x']) {
      const res = await h.request('POST', '/contacts/bulk-delete', { key: p.secretKey, body: { contactIds } });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await h.request('POST', '/contacts/bulk-subscribe', { key: p.secretKey, body: {} })).status).toBe(422);
    const thousand = await h.request('POST', '/contacts/bulk-subscribe', {
      key: p.secretKey,
      body: { contactIds: Array.from({ length: 1000 }, () => newId()) },
    });
    expect(thousand.status).toBe(202);
    expect(
      (await h.request('POST', '/contacts/bulk-subscribe', { key: p.publicKey, body: { contactIds: [newId()] } }))
        .status,
    ).toBe(401);
  });

  it('hides bulk jobs of other projects', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const job = await run(p, 'bulk-delete', [newId()]);
    expect((await h.request('GET', `/contacts/bulk/${job.jobId}`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('GET', `/contacts/bulk/${newId()}`, { key: p.secretKey })).status).toBe(404);
    expect((await h.request('GET', '/contacts/bulk/123', { key: p.secretKey })).status).toBe(404);
    expect((await h.request('GET', `/contacts/import/${job.jobId}`, { key: p.secretKey })).status).toBe(404);
  });
});
