import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { JOBS } from '../../../test/graphile-test.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { createVerifiedDomain, type TestDomain } from '../../../test/sending-fixtures.js';
import { SEND_LIMITS } from './send.service.js';

// POST /v1/send with several recipients is one transaction (issue "Hardening" item 16), and what one
// request may store, recipients × message size, is capped (item 3). No worker: queued jobs are rows.
describe('POST /v1/send with many recipients', () => {
  let h: Harness;
  let p: TestProject;
  let d: TestDomain;
  beforeAll(async () => {
    h = await createHarness({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
  });
  afterAll(async () => h?.close());

  const send = (body: unknown, key?: string) =>
    h.request('POST', '/v1/send', { key: p.secretKey, body, headers: key ? { 'idempotency-key': key } : {} });
  const base = () => ({ from: `hello@${d.domain}`, subject: 'Hi', body: '<p>Hi</p>' });
  const stored = async (emails: string[]) => ({
    contacts: (
      await h.sql(`select email from contacts where project_id = $1 and email = any($2) order by email`, [p.id, emails])
    ).map((r) => r.email),
    emails: (
      await h.sql(`select to_email from emails where project_id = $1 and to_email = any($2) order by to_email`, [
        p.id,
        emails,
      ])
    ).map((r) => r.to_email),
    jobs: Number(
      (
        await h.sql(
          `select count(*) as n from ${JOBS} j
      where j.task_identifier = 'emails:send' and j.payload->>'emailId' in (select id::text from emails where project_id = $1 and to_email = any($2))`,
          [p.id, emails],
        )
      )[0].n,
    ),
    events: (
      await h.sql(
        `select e.name from events e join contacts c on c.id = e.contact_id where c.project_id = $1 and c.email = any($2)`,
        [p.id, emails],
      )
    ).map((r) => r.name),
  });

  it('stores nothing and sends nothing when recipient k fails, and a retry with a new key sends each once', async () => {
    const to = ['atomic-1@example.test', 'atomic-2@example.test', 'atomic-boom@example.test', 'atomic-4@example.test'];
    // An existing contact whose subscription the request would flip: its event must roll back too.
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
      values (gen_random_uuid(), $1, 'atomic-1@example.test', false, '{}', now(), now())`,
      [p.id],
    );
    // Recipient 3 passes every check of the request but fails in the database, as a constraint would.
    await h.sql(`create function pigeon_test_boom() returns trigger language plpgsql as $$
      begin if new.email = 'atomic-boom@example.test' then raise exception 'boom'; end if; return new; end $$`);
    await h.sql(
      `create trigger pigeon_test_boom before insert on contacts for each row execute function pigeon_test_boom()`,
    );
    try {
      const failed = await send({ ...base(), to, subscribed: true }, 'first-try');
      expect(failed.status).toBe(500);
      expect(failed.body.error.code).toBe('INTERNAL_SERVER_ERROR');
      expect(await stored(to)).toEqual({ contacts: ['atomic-1@example.test'], emails: [], jobs: 0, events: [] });
      expect(
        (
          await h.sql(`select subscribed from contacts where project_id = $1 and email = 'atomic-1@example.test'`, [
            p.id,
          ])
        )[0].subscribed,
      ).toBe(false);
    } finally {
      await h.sql('drop trigger pigeon_test_boom on contacts');
      await h.sql('drop function pigeon_test_boom()');
    }
    const retried = await send({ ...base(), to, subscribed: true }, 'second-try');
    expect(retried.status).toBe(200);
    expect(await stored(to)).toEqual({
      contacts: [...to].sort(),
      emails: [...to].sort(),
      jobs: 4,
      events: ['contact.subscribed'],
    });
  });

  it('refuses 1,000 recipients of a 140 KB message (140 MB to store): 422 on `to`, nothing stored', async () => {
    const to = Array.from({ length: 1000 }, (_, i) => `big-${i}@example.test`);
    const res = await send({ ...base(), body: `<p>${'x'.repeat(140 * 1024)}</p>`, to });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'to', code: 'too_big' })]);
    expect(res.body.error.errors[0].message).toMatch(/1000 recipients × \d+ bytes .* at most 134217728 bytes/);
    expect(await stored(to.slice(0, 3))).toEqual({ contacts: [], emails: [], jobs: 0, events: [] });
  });

  it('counts attachments once per recipient: 13 × 10 MB is refused, the same mail to one recipient is not', async () => {
    const file = Buffer.alloc(SEND_LIMITS.attachmentBytes, 7).toString('base64');
    const mail = { ...base(), attachments: [{ filename: 'big.bin', content: file }] };
    const to = Array.from({ length: 13 }, (_, i) => `att-${i}@example.test`);
    const refused = await send({ ...mail, to });
    expect(refused.status).toBe(422);
    expect(refused.body.error.errors).toEqual([expect.objectContaining({ field: 'to', code: 'too_big' })]);
    expect(await stored(to)).toEqual({ contacts: [], emails: [], jobs: 0, events: [] });
    const one = await send({ ...mail, to: to[0] });
    expect(one.status).toBe(200);
    expect((await stored(to)).emails).toEqual([to[0]]);
  });
});
