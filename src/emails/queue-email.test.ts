import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { newId } from '../lib/ids.js';
import { queueEmail, type NewEmail } from './emails.repo.js';
import { TRANSACTIONAL_PRIORITY } from './emails.jobs.js';

// queueEmail: the row and its emails:send job in one statement, in the caller's transaction.
describe('queueEmail', () => {
  let h: Harness;
  let p: TestProject;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
  });
  afterAll(async () => h?.close());

  const row = (over: Partial<NewEmail> = {}): NewEmail => ({
    id: newId(), projectId: p.id, toEmail: 'q@example.test', fromEmail: 'hi@example.test', subject: 'S', body: '<p>B</p>',
    type: 'TRANSACTIONAL', sourceType: 'TRANSACTIONAL', createdAt: new Date(), updatedAt: new Date(), ...over,
  });
  const jobs = (id: string) => h.sql(`select t.identifier as task_identifier, j.priority, j.payload from graphile_worker._private_jobs j
    join graphile_worker._private_tasks t on t.id = j.task_id where j.payload->>'emailId' = $1`, [id]);

  it('queues a PENDING row with its emails:send job at the transactional priority', async () => {
    const r = row();
    await h.deps.db.transaction(async (tx) => queueEmail(tx, r));
    expect(await h.sql(`select status from emails where id = $1`, [r.id])).toEqual([{ status: 'PENDING' }]);
    expect(await jobs(r.id)).toEqual([{ task_identifier: 'emails:send', priority: TRANSACTIONAL_PRIORITY, payload: { emailId: r.id } }]);
  });

  it('gives a SUPPRESSED row no job, and a rolled-back transaction leaves neither', async () => {
    const skipped = row({ status: 'SUPPRESSED', error: 'skipped' });
    await h.deps.db.transaction(async (tx) => queueEmail(tx, skipped));
    expect(await h.sql(`select status from emails where id = $1`, [skipped.id])).toEqual([{ status: 'SUPPRESSED' }]);
    expect(await jobs(skipped.id)).toEqual([]);
    const undone = row();
    await h.deps.db.transaction(async (tx) => {
      await queueEmail(tx, undone);
      throw Object.assign(new Error('rollback'), { rollback: true });
    }).catch((e) => expect(e.rollback).toBe(true));
    expect(await h.sql(`select 1 from emails where id = $1`, [undone.id])).toEqual([]);
    expect(await jobs(undone.id)).toEqual([]);
  });
});
