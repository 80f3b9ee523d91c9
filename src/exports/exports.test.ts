import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import type { JobHelpers } from 'graphile-worker';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { runExportJob } from './exports.jobs.js';

/** Data exports (issue 39): jobs with progress, signed expiring links, expiry. */
describe('exports', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(async () => h.close());

  const addContacts = (p: TestProject, n: number, prefix = 'c') =>
    h.sql(
      `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
       select gen_random_uuid(), $1, $2 || i || '@example.test', i % 2 = 0, jsonb_build_object('n', i, 'note', 'a, "b"'),
         now() - (i || ' seconds')::interval, now()
       from generate_series(1, $3) i`,
      [p.id, prefix, n],
    );

  const done = async (p: TestProject, id: string) => {
    await expect
      .poll(async () => (await h.request('GET', `/exports/${id}`, { key: p.secretKey })).body.state, {
        timeout: 20_000,
      })
      .toMatch(/done|failed/);
    return (await h.request('GET', `/exports/${id}`, { key: p.secretKey })).body;
  };

  it('exports every contact as CSV through a signed link, and records it in the audit log', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    await addContacts(p, 4500);
    await addContacts(other, 3, 'other');
    const res = await h.request('POST', '/exports', { key: p.secretKey, body: { kind: 'contacts', format: 'csv' } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ kind: 'contacts', format: 'csv', state: 'queued', rowsDone: 0, url: null });
    const e = await done(p, res.body.id);
    expect(e).toMatchObject({ state: 'done', rowsDone: 4500, rowsTotal: 4500, error: null });
    expect(e.url).toMatch(/\/exports\/.+\/download\?token=/);
    const file = await fetch(e.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toMatch(/attachment; filename="pigeon-contacts-.*\.csv"/);
    const text = await file.text();
    const lines = text.split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('id,email,subscribed,createdAt,updatedAt,data');
    expect(lines).toHaveLength(4501);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[1])).size).toBe(4500);
    expect(text).not.toContain('other');
    expect(e.bytes).toBe(Buffer.byteLength(text));

    const audit = await h.sql(
      `select action, target_id from audit_log where project_id = $1 and action like 'export.%'`,
      [p.id],
    );
    expect(audit).toEqual([{ action: 'export.create', target_id: res.body.id }]);
    const list = await h.request('GET', '/exports', { key: p.secretKey });
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([res.body.id]);
    expect((await h.request('GET', `/exports/${res.body.id}`, { key: other.secretKey })).status).toBe(404);
  });

  it("refuses a forged, another export's or expired token; deletes the file after 7 days", async () => {
    const p = await createProject(h);
    await addContacts(p, 3);
    const a = await done(
      p,
      (await h.request('POST', '/exports', { key: p.secretKey, body: { kind: 'contacts' } })).body.id,
    );
    const b = await done(
      p,
      (await h.request('POST', '/exports', { key: p.secretKey, body: { kind: 'suppressions' } })).body.id,
    );
    const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
    expect((await h.request('GET', `/exports/${a.id}/download?token=${tokenOf(b.url)}`)).status).toBe(403);
    expect((await h.request('GET', `/exports/${a.id}/download?token=1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(
      403,
    );
    expect((await h.request('GET', `/exports/${a.id}/download`)).status).toBe(403);
    h.clock.advance(25 * 60 * 60 * 1000);
    expect((await h.request('GET', `/exports/${a.id}/download?token=${tokenOf(a.url)}`)).status).toBe(403);
    // A fresh link works until the file expires.
    const fresh = (await h.request('GET', `/exports/${a.id}`, { key: p.secretKey })).body;
    expect((await fetch(fresh.url)).status).toBe(200);
    expect(await stat(path.join(h.dataDir, 'exports', 'exports', p.id, `${a.id}.csv`))).toBeTruthy();
    h.clock.advance(7 * 24 * 60 * 60 * 1000);
    await h.sql(`select graphile_worker.add_job('exports:expire', '{}'::json)`);
    await expect
      .poll(async () => (await h.request('GET', `/exports/${a.id}`, { key: p.secretKey })).body.state, {
        timeout: 10_000,
      })
      .toBe('expired');
    expect((await h.request('GET', `/exports/${a.id}`, { key: p.secretKey })).body.url).toBeNull();
    const file = path.join(h.dataDir, 'exports', 'exports', p.id, `${a.id}.csv`);
    expect(await stat(file).catch(() => null)).toBeNull();
  });

  it('filters events and writes JSON Lines', async () => {
    const p = await createProject(h);
    await addContacts(p, 2);
    await h.sql(
      `insert into events (id, project_id, contact_id, name, data, created_at)
       select gen_random_uuid(), $1, (select id from contacts where project_id = $1 limit 1),
         case when i % 3 = 0 then 'signup' else 'login' end, jsonb_build_object('i', i), now()
       from generate_series(1, 30) i`,
      [p.id],
    );
    const res = await h.request('POST', '/exports', {
      key: p.secretKey,
      body: { kind: 'events', format: 'jsonl', filter: { name: 'signup' } },
    });
    const e = await done(p, res.body.id);
    expect(e).toMatchObject({ state: 'done', rowsDone: 10, rowsTotal: 10 });
    const rows = (await (await fetch(e.url)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(10);
    expect(rows.every((r) => r.name === 'signup' && typeof r.data.i === 'number')).toBe(true);
    expect(Object.keys(rows[0])).toEqual(['id', 'contactId', 'name', 'emailId', 'campaignId', 'createdAt', 'data']);
  });

  it("exports emails (no bodies) filtered by status and the consent log with each contact's address", async () => {
    const p = await createProject(h);
    const c = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'consent@example.test' } });
    await h.request('PATCH', `/contacts/${c.body.id}`, { key: p.secretKey, body: { subscribed: false } });
    await h.sql(
      `insert into emails (id, project_id, contact_id, to_email, from_email, subject, body, source_type, status, created_at, updated_at)
       select gen_random_uuid(), $1, $2, 'consent@example.test', 'a@example.test', 'S' || i, 'secret body', 'TRANSACTIONAL',
         case when i % 2 = 0 then 'DELIVERED' else 'BOUNCED' end, now(), now()
       from generate_series(1, 6) i`,
      [p.id, c.body.id],
    );
    const run = async (body: object) => {
      const res = await h.request('POST', '/exports', { key: p.secretKey, body });
      const e = await done(p, res.body.id);
      expect(e.state).toBe('done');
      return (await (await fetch(e.url)).text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    };
    const emails = await run({ kind: 'emails', format: 'jsonl', filter: { status: 'BOUNCED' } });
    expect(emails).toHaveLength(3);
    expect(emails[0]).toMatchObject({ toEmail: 'consent@example.test', status: 'BOUNCED', contactId: c.body.id });
    expect(emails[0].createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(emails[0].sentAt).toBeNull();
    expect(JSON.stringify(emails)).not.toContain('secret body');
    const consent = await run({ kind: 'consent', format: 'jsonl' });
    expect(consent.length).toBeGreaterThan(0);
    expect(consent.every((r) => r.email === 'consent@example.test' && r.contactId === c.body.id)).toBe(true);
    expect(consent.map((r) => r.action)).toEqual(['subscribed', 'unsubscribed']);
  });

  it('refuses a bad body (422) and more than 5 waiting exports (429)', async () => {
    const p = await createProject(h);
    const bad = await h.request('POST', '/exports', { key: p.secretKey, body: { kind: 'passwords' } });
    expect(bad.status).toBe(422);
    const badFilter = await h.request('POST', '/exports', {
      key: p.secretKey,
      body: { kind: 'events', filter: { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' } },
    });
    expect(badFilter.status).toBe(422);
    await h.sql(
      `insert into exports (id, project_id, kind, format, state) select gen_random_uuid(), $1, 'contacts', 'csv', 'queued'
       from generate_series(1, 5)`,
      [p.id],
    );
    const capped = await h.request('POST', '/exports', { key: p.secretKey, body: { kind: 'contacts' } });
    expect(capped.status).toBe(429);
    expect(await h.sql(`select count(*)::int as n from exports where project_id = $1`, [p.id])).toEqual([{ n: 5 }]);
  });

  it('marks an export failed with a sentence when its last attempt cannot write the file', async () => {
    const p = await createProject(h);
    const [{ id }] = await h.sql(
      `insert into exports (id, project_id, kind, format) values (gen_random_uuid(), $1, 'contacts', 'csv') returning id`,
      [p.id],
    );
    // The exports folder cannot be made: a file is in its place.
    const blocker = path.join(h.dataDir, 'exports', 'exports', p.id);
    await mkdir(path.dirname(blocker), { recursive: true });
    await writeFile(blocker, 'not a folder');
    const helpers = (attempts: number) =>
      ({ job: { attempts, max_attempts: 3 }, logger: { error() {}, info() {} } }) as unknown as JobHelpers;
    await expect(runExportJob.run(h.deps, { exportId: id }, helpers(1))).rejects.toThrow();
    expect((await h.request('GET', `/exports/${id}`, { key: p.secretKey })).body.state).toBe('running');
    await runExportJob.run(h.deps, { exportId: id }, helpers(3));
    const e = (await h.request('GET', `/exports/${id}`, { key: p.secretKey })).body;
    expect(e).toMatchObject({ state: 'failed', url: null });
    expect(e.error).toMatch(/^The export could not be written after 3 attempts \(.+\)\.$/);
    await rm(blocker);
  });
});
