import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { newId } from '../lib/ids.js';

describe('CSV import', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(async () => h.close());

  const upload = (p: TestProject, content: string | Buffer, field = 'file') => {
    const form = new FormData();
    form.append(
      field,
      new Blob([typeof content === 'string' ? content : new Uint8Array(content)], { type: 'text/csv' }),
      'contacts.csv',
    );
    return h.request('POST', '/contacts/import', { key: p.secretKey, body: form, raw: true });
  };

  /** Polls the status until the job ends, recording every progress value seen. */
  async function finish(p: TestProject, jobId: string) {
    const progress: number[] = [];
    for (let i = 0; i < 600; i++) {
      const res = await h.request('GET', `/contacts/import/${jobId}`, { key: p.secretKey });
      expect(res.status).toBe(200);
      progress.push(res.body.progress);
      if (res.body.state === 'completed' || res.body.state === 'failed') return { ...res.body, progressSeen: progress };
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('import did not finish');
  }

  const importCsv = async (p: TestProject, content: string | Buffer) => {
    const res = await upload(p, content);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ jobId: expect.any(String) });
    return finish(p, res.body.jobId);
  };

  const contacts = (p: TestProject) =>
    h.sql<{ email: string; subscribed: boolean; data: Record<string, unknown> }>(
      'select email, subscribed, data from contacts where project_id = $1 order by email',
      [p.id],
    );

  it('imports 10,000 rows with 3 bad ones: 9,997 contacts, errors with row numbers, progress to 100', async () => {
    const p = await createProject(h);
    const lines = ['Email,first_name,age,vip,subscribed'];
    const bad = new Map([
      [1234, 'not-an-email'],
      [5000, ''],
      [9999, 'x@@example.test'],
    ]);
    for (let i = 1; i <= 10_000; i++) {
      lines.push(
        `${bad.get(i) ?? `User${i}@Example.test`},Name ${i},${20 + (i % 50)},${i % 2 === 0},${i % 10 === 0 ? 'false' : ''}`,
      );
    }
    const job = await importCsv(p, lines.join('\n') + '\n');
    expect(job.state).toBe('completed');
    expect(job.failedReason).toBeNull();
    expect(job.progress).toBe(100);
    // The header is row 1, so data line i is row i + 1.
    expect(job.result).toEqual({
      processed: 10_000,
      created: 9_997,
      updated: 0,
      skipped: 0,
      failed: 3,
      errors: [
        { row: 1235, message: expect.stringContaining('not-an-email') },
        { row: 5001, message: 'Missing email' },
        { row: 10000, message: expect.stringContaining('x@@example.test') },
      ],
    });
    const [{ n }] = await h.sql('select count(*)::int as n from contacts where project_id = $1', [p.id]);
    expect(n).toBe(9_997);
    const [c] = await h.sql(
      `select subscribed, data from contacts where project_id = $1 and email = 'user10@example.test'`,
      [p.id],
    );
    expect(c).toEqual({ subscribed: false, data: { first_name: 'Name 10', age: 30, vip: true } });
    const [d] = await h.sql(
      `select subscribed, data from contacts where project_id = $1 and email = 'user7@example.test'`,
      [p.id],
    );
    expect(d).toEqual({ subscribed: true, data: { first_name: 'Name 7', age: 27, vip: false } });
  });

  it('updates existing contacts: merges data, keeps subscription unless the column says otherwise', async () => {
    const p = await createProject(h);
    await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'old@example.test', subscribed: false, data: { a: 1, b: 'x' } },
    });
    await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'flip@example.test', subscribed: false } });
    const job = await importCsv(
      p,
      'email,subscribed,b,c\nold@example.test,,y,\nflip@example.test,yes,,\nnew@example.test,,,007\nold@example.test,,z,\n',
    );
    expect(job.result).toMatchObject({ processed: 4, created: 1, updated: 3, failed: 0, errors: [] });
    expect(await contacts(p)).toEqual([
      { email: 'flip@example.test', subscribed: true, data: {} },
      { email: 'new@example.test', subscribed: true, data: { c: '007' } },
      { email: 'old@example.test', subscribed: false, data: { a: 1, b: 'z' } },
    ]);
  });

  it('reads quoted fields with embedded newlines, a BOM and the ; separator', async () => {
    const p = await createProject(h);
    const csv =
      '\uFEFFEMAIL;note;score;id\r\n"a@example.test";"line one\r\nline two; with ""quotes""";1,5;x\r\nb@example.test;plain;-2.25;y\r\n\r\n';
    const job = await importCsv(p, Buffer.from(csv, 'utf8'));
    expect(job.state).toBe('completed');
    expect(job.result).toMatchObject({ processed: 2, created: 2, skipped: 1, failed: 0 });
    expect(await contacts(p)).toEqual([
      {
        email: 'a@example.test',
        subscribed: true,
        data: { note: 'line one\r\nline two; with "quotes"', score: '1,5' },
      },
      { email: 'b@example.test', subscribed: true, data: { note: 'plain', score: -2.25 } },
    ]);
  });

  it('reports row-level problems without failing the job', async () => {
    const p = await createProject(h);
    const job = await importCsv(
      p,
      'email,name\n"multi\nline@example.test",x\nok@example.test,y,extra\ngood@example.test,z\nbad-sub@example.test,w\n',
    );
    expect(job.state).toBe('completed');
    expect(job.result.failed).toBe(2);
    expect(job.result.errors).toEqual([
      { row: 2, message: expect.stringContaining('Invalid email') },
      { row: 3, message: 'Row has 3 fields but the header has 2' },
    ]);
    expect((await contacts(p)).map((c) => c.email)).toEqual(['bad-sub@example.test', 'good@example.test']);
    const sub = await importCsv(p, 'email,subscribed\nbad-sub@example.test,perhaps\n');
    expect(sub.result.errors).toEqual([{ row: 2, message: expect.stringContaining('perhaps') }]);
  });

  it('fails a malformed file with a reason and writes nothing', async () => {
    const p = await createProject(h);
    const cases: Array<[string | Buffer, RegExp]> = [
      ['name,phone\nAnn,123\n', /no email column/],
      // A valid first part, then an unterminated quote: the rows before it must not be kept.
      [
        `email,name\n${Array.from({ length: 3000 }, (_, i) => `ok${i}@example.test,n`).join('\n')}\nlast@example.test,"unterminated\n`,
        /not valid CSV/,
      ],
      [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]), /not a text CSV/],
      [Buffer.from([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0xff, 0xfe, 0x41]), /not UTF-8/],
    ];
    for (const [content, reason] of cases) {
      const job = await importCsv(p, content);
      expect(job.state).toBe('failed');
      expect(job.failedReason).toMatch(reason);
      expect(job.result).toBeNull();
    }
    expect(await contacts(p)).toEqual([]);
    // The stored file is dropped once the job ends.
    const rows = await h.sql(`select input from background_jobs where project_id = $1`, [p.id]);
    expect(rows.every((r) => !('file' in r.input))).toBe(true);
  });

  it('accepts up to 5 MB and refuses more with 413', async () => {
    const p = await createProject(h);
    const header = 'email,pad\n';
    const big = header + 'a@example.test,' + 'x'.repeat(5 * 1024 * 1024 - header.length - 16) + '\n';
    expect(Buffer.byteLength(big)).toBeLessThanOrEqual(5 * 1024 * 1024);
    const ok = await upload(p, big);
    expect(ok.status).toBe(202);
    const tooBig = await upload(p, big + 'b@example.test,y\n');
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const done = await finish(p, ok.body.jobId);
    expect(done.state).toBe('completed');
  });

  it('needs multipart with a "file" field', async () => {
    const p = await createProject(h);
    const json = await h.request('POST', '/contacts/import', {
      key: p.secretKey,
      body: { file: 'email\na@example.test' },
    });
    expect(json.status).toBe(400);
    const csv = await h.request('POST', '/contacts/import', {
      key: p.secretKey,
      body: 'email\n',
      raw: true,
      headers: { 'content-type': 'text/csv' },
    });
    expect(csv.status).toBe(400);
    const wrongField = await upload(p, 'email\na@example.test\n', 'upload');
    expect(wrongField.status).toBe(422);
    expect(wrongField.body.error.errors[0].field).toBe('file');
    expect((await upload({ ...p, secretKey: 'sk_wrong' }, 'email\n')).status).toBe(401);
  });

  it('hides import jobs of other projects and unknown ids', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const res = await upload(p, 'email\na@example.test\n');
    await finish(p, res.body.jobId);
    for (const [proj, id] of [
      [other, res.body.jobId],
      [p, newId()],
      [p, 'nope'],
    ] as const) {
      const r = await h.request('GET', `/contacts/import/${id}`, { key: proj.secretKey });
      expect(r.status).toBe(404);
    }
    // An import id is not a bulk job.
    expect((await h.request('GET', `/contacts/bulk/${res.body.jobId}`, { key: p.secretKey })).status).toBe(404);
  });
  it('imports a timezone column as the contact time zone, spelled canonically, and drops names that are no zone', async () => {
    const p = await createProject(h);
    const job = await importCsv(
      p,
      'email,timezone\nann@tz.test,europe/berlin\nbob@tz.test,Mars/Olympus_Mons\ncy@tz.test,Asia/Tokyo\n',
    );
    expect(job.state).toBe('completed');
    const rows = await contacts(p);
    expect(rows.map((r) => [r.email, r.data.timezone ?? null])).toEqual([
      ['ann@tz.test', 'Europe/Berlin'],
      ['bob@tz.test', null],
      ['cy@tz.test', 'Asia/Tokyo'],
    ]);
  });

  it('imports a Language column as the reserved data.locale, keeping values that are no language as written', async () => {
    const p = await createProject(h);
    const job = await importCsv(p, 'Email,Language\nann@lang.test,de\nbob@lang.test,pt_BR\ncy@lang.test,Klingon!\n');
    expect(job.state).toBe('completed');
    const rows = await contacts(p);
    // Stored as given: the language is read from it (normalizeLocale) when a mail or page is made.
    expect(rows.map((r) => [r.email, r.data.locale, r.data.Language])).toEqual([
      ['ann@lang.test', 'de', undefined],
      ['bob@lang.test', 'pt_BR', undefined],
      ['cy@lang.test', 'Klingon!', undefined],
    ]);
  });
});
