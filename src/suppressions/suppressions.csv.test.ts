import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { csvCell, unguardCell } from '../lib/csv.js';
import * as suppressions from './suppressions.repo.js';

/** Search, CSV export and CSV import of the suppression list. */
describe('suppressions: search, export and import', () => {
  let h: Harness;
  let p: TestProject;
  const req = (method: string, path: string, body?: unknown) => h.request(method, path, { key: p.secretKey, body });
  const rows = (proj = p) =>
    h.sql('select email, reason from suppressions where project_id = $1 order by email', [proj.id]);
  const upload = (content: string | Buffer, fields: Record<string, string> = {}, field = 'file', key = p.secretKey) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append(
      field,
      new Blob([typeof content === 'string' ? content : new Uint8Array(content)], { type: 'text/csv' }),
      'list.csv',
    );
    return h.request('POST', '/suppressions/import', { key, body: form, raw: true });
  };

  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h?.close());

  it('searches part of the address in any case, with the reason filter, and counts the matches', async () => {
    p = await createProject(h);
    await req('POST', '/suppressions', { emails: ['ann@shop.test', 'bob@shop.test', 'ann@other.test'] });
    await req('POST', '/suppressions', { emails: ['annie@shop.test'], reason: 'complaint' });
    const found = await req('GET', '/suppressions?search=ANN');
    expect(found.status, found.text).toBe(200);
    expect(found.body.total).toBe(3);
    expect(found.body.data.map((s: { email: string }) => s.email).sort()).toEqual([
      'ann@other.test',
      'ann@shop.test',
      'annie@shop.test',
    ]);
    const both = await req('GET', '/suppressions?search=shop&reason=complaint');
    expect(both.body.data.map((s: { email: string }) => s.email)).toEqual(['annie@shop.test']);
    // Literal: `%` and `_` are no wildcards.
    expect((await req('GET', '/suppressions?search=%25')).body.total).toBe(0);
    expect((await req('GET', '/suppressions?search=a_n')).body.total).toBe(0);
    expect((await req('GET', '/suppressions?search=')).body.total).toBe(4);
    // Another project finds none of them.
    const other = await createProject(h);
    const theirs = await h.request('GET', '/suppressions?search=ann', { key: other.secretKey });
    expect(theirs.body).toEqual({ data: [], cursor: null, hasMore: false, total: 0 });
  });

  it('exports the current search as CSV with a header, quoting and a formula guard; another project sees none of it', async () => {
    p = await createProject(h);
    const other = await createProject(h);
    const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n));
    await h.deps.db.transaction(async (tx) => {
      await suppressions.add(tx, p.id, 'plain@example.test', 'manual', at(1));
      // Addresses as feedback reports may store them: quotes and commas in a quoted local part, a leading "=".
      await suppressions.add(tx, p.id, '"a,b"@example.test', 'bounce', at(2));
      await suppressions.add(tx, p.id, '=cmd@example.test', 'complaint', at(3));
      await suppressions.add(tx, other.id, 'secret@example.test', 'manual', at(4));
    });
    const all = await req('GET', '/suppressions/export');
    expect(all.status, all.text).toBe(200);
    expect(all.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(all.headers.get('content-disposition')).toContain('suppressions.csv');
    expect(all.text).toBe(
      'email,reason,createdAt\r\n' +
        `'=cmd@example.test,complaint,${at(3).toISOString()}\r\n` +
        `"""a,b""@example.test",bounce,${at(2).toISOString()}\r\n` +
        `plain@example.test,manual,${at(1).toISOString()}\r\n`,
    );
    const some = await req('GET', '/suppressions/export?search=PLAIN&reason=manual');
    expect(some.text).toBe(`email,reason,createdAt\r\nplain@example.test,manual,${at(1).toISOString()}\r\n`);
    const none = await req('GET', '/suppressions/export?reason=unsubscribe');
    expect(none.text).toBe('email,reason,createdAt\r\n');
    expect((await req('GET', '/suppressions/export?reason=spam')).status).toBe(422);
    expect((await h.request('GET', '/suppressions/export')).status).toBe(401);
    // The other project's list is its own.
    const theirs = await h.request('GET', '/suppressions/export', { key: other.secretKey });
    expect(theirs.text).not.toContain('example.test,bounce');
    expect(theirs.text).toContain('secret@example.test');
    expect(all.text).not.toContain('secret@');
  });

  it('exports a list longer than one page in order, every row once', async () => {
    p = await createProject(h);
    const n = 4500;
    await h.sql(
      `insert into suppressions (project_id, email, reason, created_at)
       select $1, 'u' || i || '@example.test', 'manual', '2026-01-01'::timestamptz + (i % 7) * interval '1 second'
       from generate_series(1, $2::int) i`,
      [p.id, n],
    );
    const res = await req('GET', '/suppressions/export');
    const lines = res.text.trimEnd().split('\r\n').slice(1);
    expect(lines).toHaveLength(n);
    expect(new Set(lines).size).toBe(n);
    const times = lines.map((l) => l.split(',')[2]);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('cells: quoting and the formula guard go both ways', () => {
    for (const v of ['a@b.test', '+1@b.test', '-x@b.test', '@x', 'q"uote', 'new\nline', '=1+1']) {
      const cell = csvCell(v);
      const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell;
      expect(unguardCell(unquoted)).toBe(v);
    }
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
  });

  it('imports a column named E-mail, Email Address or email_address; reports bad rows and adds the rest', async () => {
    for (const header of ['E-mail', 'Email Address', 'email_address', ' EMAIL ']) {
      p = await createProject(h);
      const res = await upload(`Name;${header};Note\r\nAnn;Ann@Example.test;x\r\nBob;bob@example.test;y\r\n`);
      expect(res.status, `${header}: ${res.text}`).toBe(200);
      expect(res.body).toMatchObject({ rows: 2, added: 2, failed: 0 });
      expect(await rows()).toEqual([
        { email: 'ann@example.test', reason: 'manual' },
        { email: 'bob@example.test', reason: 'manual' },
      ]);
    }
    p = await createProject(h);
    await req('POST', '/suppressions', { emails: ['old@example.test'], reason: 'bounce' });
    const csv = [
      'email,reason,extra',
      'new@example.test,,1',
      'not-an-address,,2',
      ',,3',
      ',,',
      'OLD@example.test,complaint,4',
      'spam@example.test,spam,5',
      'com@example.test,Complaint,6',
      'new@example.test,,7',
      '"a, b@example.test",,8',
    ].join('\n');
    const res = await upload(csv, { reason: 'unsubscribe' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      rows: 8,
      added: 2,
      alreadySuppressed: 1,
      skipped: 1,
      failed: 4,
      errors: [
        { row: 3, message: '"not-an-address" is not an email address.' },
        { row: 4, message: 'No email address in this row.' },
        { row: 7, message: '"spam" is not a reason: use bounce, complaint, manual, unsubscribe.' },
        { row: 10, message: '"a, b@example.test" is not an email address.' },
      ],
    });
    expect(await rows()).toEqual([
      { email: 'com@example.test', reason: 'complaint' },
      { email: 'new@example.test', reason: 'unsubscribe' },
      { email: 'old@example.test', reason: 'bounce' },
    ]);
  });

  it('imports a plain list without a header, and an export back unchanged', async () => {
    p = await createProject(h);
    const res = await upload('\uFEFFfirst@example.test\r\nsecond@example.test\r\n');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ rows: 2, added: 2 });
    await h.sql(
      `insert into suppressions (project_id, email, reason, created_at) values ($1, '+tag@example.test', 'complaint', now())`,
      [p.id],
    );
    const exported = (await req('GET', '/suppressions/export')).text;
    const before = await rows();
    const q = await createProject(h);
    const back = await upload(exported, {}, 'file', q.secretKey);
    expect(back.body).toMatchObject({ rows: 3, added: 3, failed: 0 });
    expect(await rows(q)).toEqual(before);
  });

  it('refuses a file it cannot read, too large, or without an address column, and adds nothing', async () => {
    p = await createProject(h);
    const refused = async (res: Awaited<ReturnType<typeof upload>>, status: number, text: RegExp) => {
      expect(res.status, res.text).toBe(status);
      expect(res.body.error.message).toMatch(text);
      expect(await rows()).toEqual([]);
    };
    await refused(await upload('name,phone\nAnn,123\n'), 422, /No column of email addresses/);
    await refused(await upload(''), 422, /empty/);
    await refused(await upload(Buffer.from([0x61, 0x00, 0x62])), 422, /not a text CSV/);
    await refused(await upload(Buffer.from([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0xff, 0xfe])), 422, /UTF-8/);
    await refused(await upload('email\n"a@example.test\nb@example.test\n'), 422, /not valid CSV/);
    await refused(await upload('email\na@example.test\n', { reason: 'spam' }), 422, /reason/);
    await refused(await upload('email\na@example.test\n', {}, 'upload'), 422, /file/);
    const big = `email\n${'a'.repeat(70)}@example.test\n`.repeat(75_000);
    expect(big.length).toBeGreaterThan(5 * 1024 * 1024);
    await refused(await upload(big), 413, /larger than 5 MB/);
    const json = await req('POST', '/suppressions/import', { emails: ['a@example.test'] });
    expect(json.status).toBe(400);
    expect(await rows()).toEqual([]);
  });
});
