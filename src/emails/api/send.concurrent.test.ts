import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { JOBS } from '../../../test/graphile-test.js';
import { createHarness, type Harness, type Json } from '../../../test/harness.js';
import { createVerifiedDomain, type TestDomain } from '../../../test/sending-fixtures.js';

// Concurrent one-recipient sends are group-committed (send.single.ts): many requests' contacts, mails
// and jobs in one statement. Each caller must still get its own answer, after its own rows committed.
describe('POST /v1/send, one recipient, concurrent', () => {
  let h: Harness;
  let p: TestProject;
  let q: TestProject;
  let dp: TestDomain;
  let dq: TestDomain;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    q = await createProject(h);
    dp = await createVerifiedDomain(h, p.id);
    dq = await createVerifiedDomain(h, q.id);
  });
  afterAll(async () => h?.close());

  const send = (project: TestProject, body: unknown, headers?: Record<string, string>) =>
    h.request('POST', '/v1/send', { key: project.secretKey, body, headers });
  const mail = (d: TestDomain, to: string | { name: string; email: string }, n: number, name = `N${n}`) => ({
    to,
    from: `hello@${d.domain}`,
    subject: `Order ${n}`,
    body: '<p>Hi {{name}}, order {{order}}</p>',
    data: { name, order: { value: n, persistent: false } },
  });
  /** The emails row of `id`, its contact, and the transaction (xmin) that wrote each of them. */
  const rowOf = async (id: string) =>
    (
      await h.sql(
        `select e.project_id, e.contact_id, e.to_email, e.to_name, e.from_email, e.subject, e.variables, e.status, e.type, e.source_type,
          e.body, e.content_id, e.xmin::text as tx, c.xmin::text as contact_tx, c.data as contact_data, c.subscribed
        from emails e join contacts c on c.id = e.contact_id where e.id = $1`,
        [id],
      )
    )[0];
  const jobsOf = (ids: string[]) =>
    h.sql(
      `select payload->>'emailId' as id, priority, xmin from ${JOBS} j where j.task_identifier = 'emails:send' and payload->>'emailId' = any($1)`,
      [ids],
    );

  it('answers each request with its own contact and mail, each row and job written with its contact', async () => {
    // contact.* webhooks: the deliveries are written in the statement of the send that caused them.
    await h.sql(
      `insert into webhook_endpoints (id, project_id, url, events, secret) values (gen_random_uuid(), $1, 'https://hooks.example.test/x', '{contact.*}', 'whsec_x')`,
      [p.id],
    );
    const old = await send(p, { ...mail(dp, 'c-old@example.test', 0), data: { keep: 1 } });
    expect(old.status).toBe(200);
    const oldContact = old.body.data.emails[0].contact.id;

    const reqs = [
      ...Array.from({ length: 40 }, (_, i) => ({
        project: p,
        body: mail(dp, i % 2 ? `C${i}@Example.test` : { name: `Name ${i}`, email: `c${i}@example.test` }, i),
      })),
      // Three sends to one contact (never in one statement), one of them subscribing it.
      ...[100, 101, 102].map((n) => ({ project: p, body: mail(dp, 'C-Old@example.test', n, 'Old') })),
      { project: p, body: { ...mail(dp, 'c-old@example.test', 103, 'Old'), subscribed: true } },
      // The same addresses in another project: other contacts, never in a batch of the first.
      ...Array.from({ length: 12 }, (_, i) => ({ project: q, body: mail(dq, `c${i}@example.test`, 200 + i) })),
    ];
    const res = await Promise.all(reqs.map((r) => send(r.project, r.body)));
    expect(res.map((r) => r.status)).toEqual(reqs.map(() => 200));

    const emailIds: string[] = [];
    for (const [i, r] of res.entries()) {
      const { project, body } = reqs[i];
      const to = typeof body.to === 'string' ? body.to : body.to.email;
      expect(Object.keys(r.body.data).sort()).toEqual(['emails', 'timestamp']);
      expect(r.body.data.emails).toHaveLength(1);
      const [{ contact, email }] = r.body.data.emails;
      const [c] = await h.sql('select id, email from contacts where project_id = $1 and email = $2', [
        project.id,
        to.toLowerCase(),
      ]);
      expect(contact).toEqual({ id: c.id, email: c.email });
      const row = await rowOf(email);
      expect(row).toMatchObject({
        project_id: project.id,
        contact_id: c.id,
        to_email: c.email,
        to_name: typeof body.to === 'string' ? null : body.to.name,
        subject: body.subject,
        variables: { name: body.data.name, order: body.data.order.value },
        status: 'PENDING',
        type: 'TRANSACTIONAL',
        source_type: 'TRANSACTIONAL',
        body: body.body,
        content_id: null,
      });
      emailIds.push(email);
    }
    expect(new Set(emailIds).size).toBe(reqs.length);

    // One emails:send job per mail, at the transactional priority, in the transaction of its row.
    const jobs = await jobsOf(emailIds);
    expect(jobs.map((j) => j.id).sort()).toEqual([...emailIds].sort());
    for (const j of jobs) expect(j.xmin).toBe((await rowOf(j.id)).tx);
    // Each new contact and its contact.created delivery were written with the mail.
    for (const id of emailIds.slice(0, 40)) {
      const row = await rowOf(id);
      expect(row.contact_tx).toBe(row.tx);
      expect(row.subscribed).toBe(false);
      const deliveries = await h.sql(
        `select xmin::text as tx from webhook_deliveries where event_type = 'contact.created' and payload->'data'->>'contactId' = $1`,
        [row.contact_id],
      );
      expect(deliveries).toEqual([{ tx: row.tx }]);
    }
    // Batched: fewer transactions than mails wrote them.
    const [{ txs }] = await h.sql(
      `select count(distinct xmin::text)::int as txs from emails where id = any($1) and project_id = $2`,
      [emailIds, p.id],
    );
    expect(txs).toBeLessThan(44);

    // The existing contact: four mails, its data kept, one subscription change recorded.
    expect(await h.sql('select count(*)::int as n from emails where contact_id = $1', [oldContact])).toEqual([
      { n: 5 },
    ]);
    expect(await h.sql('select subscribed, data from contacts where id = $1', [oldContact])).toEqual([
      { subscribed: true, data: { keep: 1, name: 'Old' } },
    ]);
    expect(
      await h.sql(`select name from events where contact_id = $1 and name like 'contact.%'`, [oldContact]),
    ).toEqual([{ name: 'contact.subscribed' }]);
  });

  it('fails only the request the database refuses; the others of its batch commit', async () => {
    // An address PostgreSQL cannot index (over 2,704 bytes of random text): valid to the schema,
    // refused by the contacts index (SQLSTATE 54000), which the API answers 422.
    const tooLong = `${randomBytes(1500).toString('hex')}@example.test`;
    const reqs = Array.from({ length: 30 }, (_, i) => mail(dp, i === 17 ? tooLong : `bad-batch-${i}@example.test`, i));
    const res = await Promise.all(reqs.map((b) => send(p, b)));
    expect(res.map((r) => r.status)).toEqual(reqs.map((_, i) => (i === 17 ? 422 : 200)));
    expect(res[17].body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { sqlState: '54000' } });
    for (const [i, r] of res.entries()) {
      if (i === 17) continue;
      const row = await rowOf(r.body.data.emails[0].email);
      expect(row).toMatchObject({ to_email: `bad-batch-${i}@example.test`, subject: `Order ${i}` });
      expect(await jobsOf([r.body.data.emails[0].email])).toHaveLength(1);
    }
    // Nothing of the refused request: no contact, no mail, no job.
    expect(await h.sql('select 1 from contacts where email = $1', [tooLong])).toEqual([]);
    expect(await h.sql('select 1 from emails where to_email = $1', [tooLong])).toEqual([]);
    expect(
      await h.sql(`select count(*)::int as n from emails where project_id = $1 and to_email like 'bad-batch-%'`, [
        p.id,
      ]),
    ).toEqual([{ n: 29 }]);
  });

  it("checks each request's own sender, read together: an unverified one is refused alone", async () => {
    const reqs = Array.from({ length: 24 }, (_, i) => ({
      ...mail(dp, `sender-${i}@example.test`, i),
      from: i % 5 === 3 ? `hello@unverified-${i}.example.test` : i % 2 ? `news@sub.${dp.domain}` : `hello@${dp.domain}`,
    }));
    const res = await Promise.all(reqs.map((b) => send(p, b)));
    expect(res.map((r) => r.status)).toEqual(reqs.map((_, i) => (i % 5 === 3 ? 422 : 200)));
    for (const [i, r] of res.entries()) {
      if (i % 5 === 3) {
        expect(r.body.error.errors).toEqual([
          expect.objectContaining({ field: 'from', code: 'unverified_domain', received: reqs[i].from }),
        ]);
        expect(await h.sql('select 1 from contacts where email = $1', [`sender-${i}@example.test`])).toEqual([]);
      } else {
        expect(await rowOf(r.body.data.emails[0].email)).toMatchObject({
          to_email: `sender-${i}@example.test`,
          from_email: reqs[i].from,
        });
      }
    }
  });

  it('sends once for concurrent requests with one Idempotency-Key, among other sends', async () => {
    const key = `send-${randomBytes(6).toString('hex')}`;
    const body = mail(dp, 'idem@example.test', 1);
    const others = Array.from({ length: 20 }, (_, i) => send(p, mail(dp, `idem-other-${i}@example.test`, i)));
    const same = Array.from({ length: 6 }, () => send(p, body, { 'Idempotency-Key': key }));
    const res = await Promise.all(same);
    expect((await Promise.all(others)).map((r) => r.status)).toEqual(Array(20).fill(200));
    const statuses = res.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    const replay = await send(p, body, { 'Idempotency-Key': key });
    expect(replay.status).toBe(409);
    expect(replay.body.error.details).toMatchObject({ key, originalStatusCode: 200 });
    const rows = await h.sql(`select id from emails where project_id = $1 and to_email = 'idem@example.test'`, [p.id]);
    expect(rows).toEqual([{ id: res.find((r) => r.status === 200)!.body.data.emails[0].email }]);
    expect(await jobsOf([rows[0].id])).toHaveLength(1);
  });

  it('sends a body too large to batch in a statement of its own, with the same rows', async () => {
    const big = `<p>${'x'.repeat(200_000)}</p>`;
    const res = await Promise.all([
      send(p, { ...mail(dp, 'big@example.test', 1), body: big }),
      ...Array.from({ length: 5 }, (_, i) => send(p, mail(dp, `big-other-${i}@example.test`, i))),
    ]);
    expect(res.map((r) => r.status)).toEqual(Array(6).fill(200));
    const id: string = res[0].body.data.emails[0].email;
    const row: Json = await rowOf(id);
    expect(row).toMatchObject({ to_email: 'big@example.test', body: big, content_id: null, status: 'PENDING' });
    expect(row.contact_tx).toBe(row.tx);
    expect(await jobsOf([id])).toHaveLength(1);
  });
});
