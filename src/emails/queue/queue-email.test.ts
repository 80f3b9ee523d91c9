import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { JOBS } from '../../../test/graphile-test.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { newId } from '../../lib/ids.js';
import { sql } from 'drizzle-orm';
import { upsertContact } from '../../contacts/contacts.upsert.js';
import { createTemplate, createVerifiedDomain } from '../../../test/sending-fixtures.js';
import type { NewEmail } from '../emails.repo.js';
import { queueEmail, queueEmails, queueEmailSql } from './queue.js';
import { MARKETING_SKIPPED } from '../eligibility.js';
import { TRANSACTIONAL_PRIORITY } from '../emails.jobs.js';

// queue.ts, the one way email is queued: rows and their jobs in one statement, in the caller's transaction.
describe('queueEmail', () => {
  let h: Harness;
  let p: TestProject;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
  });
  afterAll(async () => h?.close());

  const row = (over: Partial<NewEmail> = {}): NewEmail => ({
    id: newId(),
    projectId: p.id,
    toEmail: 'q@example.test',
    fromEmail: 'hi@example.test',
    subject: 'S',
    body: '<p>B</p>',
    type: 'TRANSACTIONAL',
    sourceType: 'TRANSACTIONAL',
    createdAt: new Date(),
    updatedAt: new Date(),
    ...over,
  });
  const jobs = (id: string) =>
    h.sql(`select j.task_identifier, j.priority, j.payload from ${JOBS} j where j.payload->>'emailId' = $1`, [id]);

  it('queues a PENDING row with its emails:send job at the transactional priority', async () => {
    const r = row();
    await h.deps.db.transaction(async (tx) => queueEmail(tx, r));
    expect(await h.sql(`select status from emails where id = $1`, [r.id])).toEqual([{ status: 'PENDING' }]);
    expect(await jobs(r.id)).toEqual([
      { task_identifier: 'emails:send', priority: TRANSACTIONAL_PRIORITY, payload: { emailId: r.id } },
    ]);
  });

  it('gives a SUPPRESSED row no job, and a rolled-back transaction leaves neither', async () => {
    const skipped = row({ status: 'SUPPRESSED', error: 'skipped' });
    await h.deps.db.transaction(async (tx) => queueEmail(tx, skipped));
    expect(await h.sql(`select status from emails where id = $1`, [skipped.id])).toEqual([{ status: 'SUPPRESSED' }]);
    expect(await jobs(skipped.id)).toEqual([]);
    const undone = row();
    await h.deps.db
      .transaction(async (tx) => {
        await queueEmail(tx, undone);
        throw Object.assign(new Error('rollback'), { rollback: true });
      })
      .catch((e) => expect(e.rollback).toBe(true));
    expect(await h.sql(`select 1 from emails where id = $1`, [undone.id])).toEqual([]);
    expect(await jobs(undone.id)).toEqual([]);
  });

  it('writes a one-recipient /v1/send (contact, mail, job) in one statement, and a failed statement leaves no contact', async () => {
    const d = await createVerifiedDomain(h, p.id);
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'One@Stmt.test', from: `hi@${d.domain}`, subject: 'S', body: '<p>B</p>' },
    });
    expect(res.status).toBe(200);
    const { email: id, contact } = res.body.data.emails[0];
    const [m] = await h.sql(
      `select e.xmin::text as e, c.xmin::text as c, e.contact_id, e.to_email, e.status from emails e
      join contacts c on c.id = e.contact_id where e.id = $1`,
      [id],
    );
    expect(m).toMatchObject({ contact_id: contact.id, to_email: 'one@stmt.test', status: 'PENDING' });
    // Rows written by one statement outside a transaction share its transaction id.
    expect(m.e).toBe(m.c);
    const [j] = await h.sql(`select xmin::text as x, priority from ${JOBS} j where payload->>'emailId' = $1`, [id]);
    expect(j).toEqual({ x: m.e, priority: TRANSACTIONAL_PRIORITY });

    // The mail's insert fails (no such project for the email row): the contact is not written either.
    const r = row({ projectId: newId() });
    await expect(
      upsertContact(
        h.deps.db,
        {
          projectId: p.id,
          email: 'never@stmt.test',
          defaultSubscribed: false,
          origin: { source: 'api' },
          now: new Date(),
        },
        queueEmailSql({ ...r, contactId: sql`(select id from up)` }),
      ),
    ).rejects.toThrow();
    expect(await h.sql(`select 1 from contacts where project_id = $1 and email = 'never@stmt.test'`, [p.id])).toEqual(
      [],
    );
  });

  it('queues a many-recipient /v1/send in one statement with the marketing rule per row', async () => {
    const d = await createVerifiedDomain(h, p.id);
    const news = await createTemplate(h, p.id, {
      subject: 'News',
      body: '<p>n</p>',
      from: `news@${d.domain}`,
      type: 'MARKETING',
    });
    const contacts = { yes: 'yes@set.test', no: 'no@set.test', supp: 'supp@set.test', snoozed: 'snoozed@set.test' };
    for (const [k, email] of Object.entries(contacts)) {
      const res = await h.request('POST', '/contacts', { key: p.secretKey, body: { email, subscribed: k !== 'no' } });
      expect(res.status, res.text).toBeLessThan(300);
    }
    await h.sql(`update contacts set snoozed_until = now() + interval '1 day' where project_id = $1 and email = $2`, [
      p.id,
      contacts.snoozed,
    ]);
    expect(
      (await h.request('POST', '/suppressions', { key: p.secretKey, body: { emails: [contacts.supp] } })).status,
    ).toBeLessThan(300);
    const to = [
      { name: 'Yes', email: 'YES@set.test' },
      contacts.no,
      contacts.supp,
      contacts.snoozed,
      { name: 'Again', email: contacts.yes },
    ];
    const res = await h.request('POST', '/v1/send', { key: p.secretKey, body: { to, template: news } });
    expect(res.status, res.text).toBe(200);
    const ids: string[] = res.body.data.emails.map((e: { email: string }) => e.email);
    expect(res.body.data.emails.map((e: { contact: { email: string } }) => e.contact.email)).toEqual([
      contacts.yes,
      contacts.no,
      contacts.supp,
      contacts.snoozed,
      contacts.yes,
    ]);
    const rows = await h.sql(
      `select id, to_email, to_name, status, error, xmin::text as x from emails where id = any($1::uuid[])`,
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(
      ids.map((id) => {
        const { to_email, to_name, status, error } = byId.get(id);
        return { to_email, to_name, status, error };
      }),
    ).toEqual([
      { to_email: contacts.yes, to_name: 'Yes', status: 'PENDING', error: null },
      { to_email: contacts.no, to_name: null, status: 'SUPPRESSED', error: MARKETING_SKIPPED },
      { to_email: contacts.supp, to_name: null, status: 'SUPPRESSED', error: MARKETING_SKIPPED },
      { to_email: contacts.snoozed, to_name: null, status: 'SUPPRESSED', error: MARKETING_SKIPPED },
      { to_email: contacts.yes, to_name: 'Again', status: 'PENDING', error: null },
    ]);
    // One transaction; a job for each PENDING row only, at the transactional priority.
    expect(new Set(rows.map((r) => r.x)).size).toBe(1);
    for (const [i, id] of ids.entries()) {
      const want =
        i === 0 || i === 4
          ? [{ task_identifier: 'emails:send', priority: TRANSACTIONAL_PRIORITY, payload: { emailId: id } }]
          : [];
      expect(await jobs(id)).toEqual(want);
    }
  });

  it('inserts a campaign row once per contact however often the same batch is queued', async () => {
    const [c] = await h.sql(
      `insert into contacts (id, project_id, email, subscribed, created_at, updated_at)
      values ($1, $2, 'camp@set.test', true, now(), now()) returning id`,
      [newId(), p.id],
    );
    const campaignId = newId();
    const batch = (id: string) => ({
      values: {
        ...row({ sourceType: 'CAMPAIGN', type: 'MARKETING', campaignId }),
        id,
        contactId: sql`contact.id`,
        toEmail: sql`contact.email`,
      },
      from: sql`contacts contact where contact.id = ${c.id}`,
      onConflict: 'campaign' as const,
      jobs: 'caller' as const,
    });
    const first = newId();
    const second = newId();
    expect(await h.deps.db.transaction((tx) => queueEmails(tx, batch(first)))).toEqual([
      { id: first, status: 'PENDING' },
    ]);
    expect(await h.deps.db.transaction((tx) => queueEmails(tx, batch(second)))).toEqual([]);
    expect(await h.sql(`select id, to_email from emails where campaign_id = $1`, [campaignId])).toEqual([
      { id: first, to_email: 'camp@set.test' },
    ]);
    // `caller`: the caller adds the jobs.
    expect(await jobs(first)).toEqual([]);
  });
});
