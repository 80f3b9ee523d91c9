import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { newId } from '../lib/ids.js';
import { sql } from 'drizzle-orm';
import { upsertContact } from '../contacts/contacts.upsert.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';
import { queueEmail, queueEmailSql, type NewEmail } from './emails.repo.js';
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

  it('writes a one-recipient /v1/send (contact, mail, job) in one statement, and a failed statement leaves no contact', async () => {
    const d = await createVerifiedDomain(h, p.id);
    const res = await h.request('POST', '/v1/send', { key: p.secretKey, body: { to: 'One@Stmt.test', from: `hi@${d.domain}`, subject: 'S', body: '<p>B</p>' } });
    expect(res.status).toBe(200);
    const { email: id, contact } = res.body.data.emails[0];
    const [m] = await h.sql(`select e.xmin::text as e, c.xmin::text as c, e.contact_id, e.to_email, e.status from emails e
      join contacts c on c.id = e.contact_id where e.id = $1`, [id]);
    expect(m).toMatchObject({ contact_id: contact.id, to_email: 'one@stmt.test', status: 'PENDING' });
    // Rows written by one statement outside a transaction share its transaction id.
    expect(m.e).toBe(m.c);
    const [j] = await h.sql(`select xmin::text as x, priority from graphile_worker._private_jobs where payload->>'emailId' = $1`, [id]);
    expect(j).toEqual({ x: m.e, priority: TRANSACTIONAL_PRIORITY });

    // The mail's insert fails (no such project for the email row): the contact is not written either.
    const r = row({ projectId: newId() });
    await expect(upsertContact(h.deps.db, { projectId: p.id, email: 'never@stmt.test', defaultSubscribed: false, emitSubscriptionEvents: true, now: new Date() },
      queueEmailSql(h.deps.db, { ...r, contactId: sql`(select id from up)` }))).rejects.toThrow();
    expect(await h.sql(`select 1 from contacts where project_id = $1 and email = 'never@stmt.test'`, [p.id])).toEqual([]);
  });
});
