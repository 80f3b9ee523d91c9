import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

/** CSV export, import with a column mapping, and search by name (issue 34). */
describe('contacts: export, mapped import, name search', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(async () => h.close());

  const add = (p: TestProject, email: string, data: Record<string, unknown> = {}, subscribed = true) =>
    h.sql(
      `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
       values (gen_random_uuid(), $1, $2, $3, $4, now(), now())`,
      [p.id, email, subscribed, JSON.stringify(data)],
    );

  /** Parses the simple CSV the export writes (quoted cells, doubled quotes, CRLF). */
  const parseCsv = (text: string): string[][] => {
    const rows: string[][] = [];
    let row: string[] = [];
    let cell = '';
    let q = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (q) {
        if (ch === '"' && text[i + 1] === '"') {
          cell += '"';
          i++;
        } else if (ch === '"') q = false;
        else cell += ch;
      } else if (ch === '"') q = true;
      else if (ch === ',') {
        row.push(cell);
        cell = '';
      } else if (ch === '\r' && text[i + 1] === '\n') {
        row.push(cell);
        rows.push(row);
        row = [];
        cell = '';
        i++;
      } else cell += ch;
    }
    return rows;
  };

  it('exports the filter as CSV: only matching contacts of this project, formula cells made text', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    await add(p, 'ada@example.test', { firstName: 'Ada', plan: '=HYPERLINK("http://x")', note: 'a, "b"' });
    await add(p, 'bob@example.test', { firstName: 'Bob', score: -3, tag: '@admin' }, false);
    await add(p, '+1@example.test', { firstName: 'Plus' });
    await add(other, 'ada-other@example.test', { firstName: 'Ada' });

    const all = await h.request('GET', '/contacts/export', { key: p.secretKey });
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(all.headers.get('content-disposition')).toMatch(/attachment; filename="contacts-.*\.csv"/);
    const rows = parseCsv(all.text);
    expect(rows[0]).toEqual(['email', 'subscribed', 'createdAt', 'firstName', 'note', 'plan', 'score', 'tag']);
    expect(rows.slice(1).map((r) => r[0])).toEqual(["'+1@example.test", 'ada@example.test', 'bob@example.test']);
    const ada = rows.find((r) => r[0] === 'ada@example.test')!;
    expect(ada[5]).toBe(`'=HYPERLINK("http://x")`);
    expect(ada[4]).toBe('a, "b"');
    const bob = rows.find((r) => r[0] === 'bob@example.test')!;
    expect(bob[1]).toBe('false');
    expect(bob[6]).toBe('-3'); // a number is data, not a formula
    expect(bob[7]).toBe("'@admin");
    expect(all.text).not.toContain('ada-other');

    const unsub = parseCsv((await h.request('GET', '/contacts/export?subscribed=false', { key: p.secretKey })).text);
    expect(unsub.slice(1).map((r) => r[0])).toEqual(['bob@example.test']);
    const searched = parseCsv((await h.request('GET', '/contacts/export?search=ada', { key: p.secretKey })).text);
    expect(searched.slice(1).map((r) => r[0])).toEqual(['ada@example.test']);
    const bad = await h.request('GET', '/contacts/export?subscribed=maybe', { key: p.secretKey });
    expect(bad.status).toBe(422);
  });

  it('streams a large export in pages: every contact once, in email order, chunked', async () => {
    const p = await createProject(h);
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
       select gen_random_uuid(), $1, 'u' || lpad(i::text, 5, '0') || '@example.test', true,
         jsonb_build_object('n', i), now(), now() from generate_series(1, 2500) i`,
      [p.id],
    );
    const res = await h.request('GET', '/contacts/export', { key: p.secretKey });
    expect(res.status).toBe(200);
    // Streamed, so the length is not known up front.
    expect(res.headers.get('content-length')).toBeNull();
    const emails = parseCsv(res.text)
      .slice(1)
      .map((r) => r[0]);
    expect(emails).toHaveLength(2500);
    expect(new Set(emails).size).toBe(2500);
    expect(emails).toEqual([...emails].sort());
  });

  it('searches by first name, last name and email', async () => {
    const p = await createProject(h);
    await add(p, 'x1@example.test', { firstName: 'Grace', lastName: 'Hopper' });
    await add(p, 'x2@example.test', { first_name: 'Alan' });
    await add(p, 'grace.k@example.test', {});
    await add(p, 'x3@example.test', { name: 'Someone Else' });
    const find = async (q: string) =>
      (
        await h.request('GET', `/contacts?sort=email&dir=asc&search=${encodeURIComponent(q)}`, { key: p.secretKey })
      ).body.data.map((c: { email: string }) => c.email);
    expect(await find('grace')).toEqual(['grace.k@example.test', 'x1@example.test']);
    expect(await find('HOPPER')).toEqual(['x1@example.test']);
    expect(await find('grace hopper')).toEqual(['x1@example.test']);
    expect(await find('alan')).toEqual(['x2@example.test']);
    expect(await find('else')).toEqual(['x3@example.test']);
    expect(await find('%')).toEqual([]);
  });

  it('uses the trigram indexes for a name search', async () => {
    const [{ n }] = await h.sql(`select count(*)::int as n from pg_indexes where indexname = 'contacts_name_trgm'`);
    expect(n).toBe(1);
  });

  const upload = (p: TestProject, csv: string, mapping?: Record<string, string>) => {
    const form = new FormData();
    if (mapping) form.append('mapping', JSON.stringify(mapping));
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
    return h.request('POST', '/contacts/import', { key: p.secretKey, body: form, raw: true });
  };
  const finish = async (p: TestProject, jobId: string) => {
    let body: { state: string; result: unknown; failedReason: string | null } | undefined;
    await expect
      .poll(
        async () => {
          body = (await h.request('GET', `/contacts/import/${jobId}`, { key: p.secretKey })).body;
          return body!.state;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toMatch(/completed|failed/);
    return body!;
  };
  const contacts = (p: TestProject) =>
    h.sql<{ email: string; subscribed: boolean; data: Record<string, unknown> }>(
      'select email, subscribed, data from contacts where project_id = $1 order by email',
      [p.id],
    );

  it('imports a file whose column is "E-mail" or "Email Address" without a mapping', async () => {
    const p = await createProject(h);
    for (const csv of ['E-mail,First Name\nA@Example.test,Ann\n', 'Email Address;Subscribed\nb@example.test;no\n']) {
      const res = await upload(p, csv);
      expect(res.status).toBe(202);
      expect((await finish(p, res.body.jobId)).state).toBe('completed');
    }
    expect(await contacts(p)).toEqual([
      { email: 'a@example.test', subscribed: true, data: { 'First Name': 'Ann' } },
      { email: 'b@example.test', subscribed: false, data: {} },
    ]);
  });

  it('imports with an explicit mapping: renamed keys, skipped columns, the email from any column', async () => {
    const p = await createProject(h);
    const csv = 'Contact,Given name,Internal,Opted in\nc@example.test,Cy,secret,false\n';
    const res = await upload(p, csv, {
      Contact: 'email',
      'Given name': 'data:firstName',
      Internal: 'skip',
      'Opted in': 'subscribed',
    });
    expect(res.status).toBe(202);
    const job = await finish(p, res.body.jobId);
    expect(job.state).toBe('completed');
    expect(await contacts(p)).toEqual([{ email: 'c@example.test', subscribed: false, data: { firstName: 'Cy' } }]);
  });

  it('refuses a malformed mapping with a 422 naming the field, and queues nothing', async () => {
    const p = await createProject(h);
    for (const m of ['{not json', JSON.stringify({ a: 'nowhere' }), JSON.stringify({ a: 'email', b: 'email' })]) {
      const form = new FormData();
      form.append('mapping', m);
      form.append('file', new Blob(['a,b\nx@example.test,y\n'], { type: 'text/csv' }), 'c.csv');
      const res = await h.request('POST', '/contacts/import', { key: p.secretKey, body: form, raw: true });
      expect(res.status).toBe(422);
      expect(res.body.error.errors[0].field).toBe('mapping');
    }
    const [{ n }] = await h.sql('select count(*)::int as n from background_jobs where project_id = $1', [p.id]);
    expect(n).toBe(0);
  });
});
