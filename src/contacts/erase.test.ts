import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createTemplate, createVerifiedDomain } from '../../test/sending-fixtures.js';
import { erasedAddress } from '../suppressions/erased.js';

/** Subject access and erasure (issue 39): no trace of the address in any table, still suppressed. */
describe('contact subject access and erasure', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  /** Every text, varchar, json, jsonb and text[] column of every table of every schema holding `needle` (any case). */
  async function tracesOf(needle: string): Promise<string[]> {
    const cols = await h.sql<{ s: string; t: string; c: string }>(`
      select c.table_schema as s, c.table_name as t, c.column_name as c
      from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
      where t.table_type = 'BASE TABLE' and c.table_schema not in ('pg_catalog', 'information_schema')
        and c.udt_name in ('text', 'varchar', 'bpchar', 'json', 'jsonb', '_text', '_varchar')`);
    const found: string[] = [];
    for (const { s, t, c } of cols) {
      const r = await h.sql(`select count(*)::int as n from "${s}"."${t}" where "${c}"::text ilike $1`, [
        `%${needle}%`,
      ]);
      if (r[0].n) found.push(`${s}.${t}.${c}`);
    }
    return found;
  }

  it('gives everything about a contact, then erases every trace of its address while it stays suppressed', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    const addr = 'Erase.Me@Example.test';
    const lower = addr.toLowerCase();
    const c = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: addr, data: { firstName: 'Ada', note: `write to ${addr}` } },
    });
    expect(c.status).toBeLessThan(300);
    const id = c.body.id;
    const keep = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'keep@example.test' } });
    expect(
      (
        await h.request('POST', '/v1/track', {
          key: p.publicKey,
          body: { email: addr, event: 'visited', data: { who: addr } },
        })
      ).status,
    ).toBe(200);
    const tx = await createTemplate(h, p.id, {
      subject: 'Hi {{email}}',
      body: '<p>for {{email}}</p>',
      from: `a@${d.domain}`,
      type: 'TRANSACTIONAL',
    });
    const mk = await createTemplate(h, p.id, {
      subject: 'News',
      body: '<p>n</p>',
      from: `a@${d.domain}`,
      type: 'MARKETING',
    });
    const sent = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: [{ email: addr, name: 'Ada L' }, 'keep@example.test'], template: tx },
    });
    expect(sent.status, sent.text).toBe(200);
    await h.sql(`update emails set status = 'DELIVERED', delivered_at = now() where project_id = $1`, [p.id]);
    await h.sql(`update emails set error = $2 where project_id = $1 and to_email = $3`, [
      p.id,
      `550 <${lower}> was fine after all`,
      lower,
    ]);
    expect(
      (await h.request('POST', '/suppressions', { key: p.secretKey, body: { emails: [addr] } })).status,
    ).toBeLessThan(300);
    // Other places the address can reach: a webhook delivery, an import's file and result, an export's filter.
    await h.sql(
      `with ep as (insert into webhook_endpoints (id, project_id, url, events, secret) values (gen_random_uuid(), $1, 'https://hooks.example.test/x', '{contact.created}', 's') returning id)
       insert into webhook_deliveries (id, project_id, endpoint_id, event_id, event_type, payload, subject)
       select gen_random_uuid(), $1, ep.id, gen_random_uuid(), 'contact.created', jsonb_build_object('email', $2::text), $2 from ep`,
      [p.id, lower],
    );
    await h.sql(
      `insert into background_jobs (id, project_id, kind, state, input, result) values
        (gen_random_uuid(), $1, 'import', 'completed', jsonb_build_object('file', $2::text), jsonb_build_object('errors', jsonb_build_array($3::text)))`,
      [p.id, Buffer.from(`email\n${addr}\nkeep@example.test\n`).toString('base64'), `row 2: ${addr} is odd`],
    );
    await h.sql(
      `insert into exports (id, project_id, kind, format, state, filter) values (gen_random_uuid(), $1, 'contacts', 'csv', 'failed', $2)`,
      [p.id, JSON.stringify({ search: lower })],
    );

    // Subject access: one document with all of it.
    const sar = await h.request('GET', `/contacts/${id}/export`, { key: p.secretKey });
    expect(sar.status).toBe(200);
    expect(sar.headers.get('content-disposition')).toContain(`contact-${id}.json`);
    expect(sar.body.contact).toMatchObject({ id, email: lower, data: { firstName: 'Ada' } });
    expect(sar.body.events.map((e: { name: string }) => e.name)).toContain('visited');
    expect(sar.body.emails).toHaveLength(1);
    expect(sar.body.emails[0]).toMatchObject({
      toEmail: lower,
      toName: 'Ada L',
      status: 'DELIVERED',
      subject: 'Hi {{email}}',
    });
    expect(sar.body.emails[0].body).toContain('{{email}}');
    expect(sar.body.emails[0].error).toBeUndefined();
    expect(sar.body.consent.length).toBeGreaterThan(0);
    expect(sar.body.suppression).toMatchObject({ reason: 'manual' });
    expect(sar.body.truncated).toEqual({ events: false, emails: false });
    expect(
      (await h.request('GET', `/contacts/${keep.body.id}/export`, { key: (await createProject(h)).secretKey })).status,
    ).toBe(404);

    // Erasure needs the address typed again.
    const wrong = await h.request('POST', `/contacts/${id}/erase`, {
      key: p.secretKey,
      body: { confirm: 'someone@else.test' },
    });
    expect(wrong.status).toBe(422);
    expect(await h.sql(`select 1 from contacts where id = $1`, [id])).toHaveLength(1);
    expect(await tracesOf(lower)).not.toEqual([]);

    const erased = await h.request('POST', `/contacts/${id}/erase`, {
      key: p.secretKey,
      body: { confirm: ` ${addr.toUpperCase()} ` },
    });
    expect(erased.status, erased.text).toBe(200);
    expect(erased.body).toMatchObject({ erased: true, emails: 1, suppressions: 1, webhookDeliveries: 1 });
    expect(erased.body.events).toBeGreaterThan(0);

    expect(await tracesOf(lower)).toEqual([]);
    expect(await tracesOf('erase.me')).toEqual([]);
    // Reports keep their counts: both mails are still there, one under the keyed hash.
    const hash = erasedAddress(addr);
    expect(
      await h.sql(`select to_email, status, subject, to_name from emails where project_id = $1 order by to_email`, [
        p.id,
      ]),
    ).toEqual([
      { to_email: hash, status: 'DELIVERED', subject: '', to_name: null },
      { to_email: 'keep@example.test', status: 'DELIVERED', subject: 'Hi {{email}}', to_name: null },
    ]);
    expect(await h.sql(`select email, reason from suppressions where project_id = $1`, [p.id])).toEqual([
      { email: hash, reason: 'manual' },
    ]);
    const audit = await h.sql(
      `select action, target_type, target_id, changes from audit_log where project_id = $1 and action = 'contact.erase'`,
      [p.id],
    );
    expect(audit).toEqual([{ action: 'contact.erase', target_type: 'contact', target_id: id, changes: null }]);
    expect((await h.request('GET', `/contacts/${id}`, { key: p.secretKey })).status).toBe(404);
    expect(
      (await h.request('POST', `/contacts/${id}/erase`, { key: p.secretKey, body: { confirm: addr } })).status,
    ).toBe(404);

    // A new marketing mail to the address is still suppressed (the contact comes back, the suppression holds).
    const again = await h.request('POST', '/v1/send', { key: p.secretKey, body: { to: addr, template: mk } });
    expect(again.status, again.text).toBe(200);
    expect(await h.sql(`select status from emails where id = $1`, [again.body.data.emails[0].email])).toEqual([
      { status: 'SUPPRESSED' },
    ]);
    // And a campaign-style check of the same rule (the SQL hash equals the JavaScript one).
    const [{ ok }] = await h.sql(
      `select exists (select 1 from suppressions where project_id = $1 and email = $2) as ok`,
      [p.id, hash],
    );
    expect(ok).toBe(true);
  });
});
