import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

let h: Harness;
let p: TestProject;
beforeAll(async () => {
  h = await createHarness();
  p = await createProject(h);
});
afterAll(async () => {
  await h.close();
});

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

function form(bytes: Buffer, name = 'image.png', type = 'image/png', field = 'file') {
  const f = new FormData();
  f.append(field, new Blob([new Uint8Array(bytes)], { type }), name);
  return f;
}

const upload = (body: FormData | string, key = p.secretKey, headers?: Record<string, string>) =>
  h.request('POST', '/uploads/image', { key, body, raw: true, headers });

describe('POST /uploads/image', () => {
  it('stores a real PNG and serves it back byte-identical, publicly, with nosniff', async () => {
    const res = await upload(form(PNG));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      url: expect.any(String),
      contentType: 'image/png',
      size: PNG.length,
    });
    expect(res.body.url).toBe(`${h.url}/uploads/${p.id}/${res.body.id}.png`);
    const [row] = await h.sql('select project_id, storage_key, content_type, size from uploads where id = $1', [
      res.body.id,
    ]);
    expect(row).toEqual({
      project_id: p.id,
      storage_key: `${p.id}/${res.body.id}.png`,
      content_type: 'image/png',
      size: PNG.length,
    });
    expect(await readFile(path.join(h.dataDir, 'uploads', p.id, `${res.body.id}.png`))).toEqual(PNG);

    const served = await fetch(res.body.url); // no credential
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
  });

  it('takes GIF by content whatever the name says', async () => {
    const res = await upload(form(GIF, 'photo.png', 'image/png'));
    expect(res.status).toBe(201);
    expect(res.body.contentType).toBe('image/gif');
    expect(res.body.url).toMatch(/\.gif$/);
    const served = await fetch(res.body.url);
    expect(served.headers.get('content-type')).toBe('image/gif');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(GIF);
  });

  it('refuses a text file named .png, an SVG and an empty file with 422', async () => {
    const before = await h.sql('select count(*)::int as n from uploads');
    for (const [bytes, name, type] of [
      [Buffer.from('just some text, not an image\n'), 'evil.png', 'image/png'],
      [
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        'x.svg',
        'image/svg+xml',
      ],
      [Buffer.from('<html><script>alert(1)</script></html>'), 'page.gif', 'image/gif'],
    ] as const) {
      const res = await upload(form(bytes, name, type));
      expect(res.status, name).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors[0]).toMatchObject({ field: 'file', code: 'invalid_file_type' });
    }
    expect((await upload(form(Buffer.alloc(0)))).status).toBe(422);
    expect(await h.sql('select count(*)::int as n from uploads')).toEqual(before);
  });

  it('accepts exactly 5 MB and answers 413 above it', async () => {
    const atLimit = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 - PNG.length)]);
    const ok = await upload(form(atLimit));
    expect(ok.status).toBe(201);
    expect(ok.body.size).toBe(5 * 1024 * 1024);

    const tooBig = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 - PNG.length + 1)]);
    const res = await upload(form(tooBig));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await h.sql('select 1 from uploads where size > $1', [5 * 1024 * 1024])).toHaveLength(0);
  });

  it('needs multipart with a "file" field and the secret key', async () => {
    const json = await h.request('POST', '/uploads/image', { key: p.secretKey, body: { file: 'x' } });
    expect(json.status).toBe(400);
    const f = new FormData();
    f.append('note', 'no file here');
    const noFile = await upload(f);
    expect(noFile.status).toBe(422);
    expect(noFile.body.error.errors[0].field).toBe('file');
    expect((await upload(form(PNG, 'a.png', 'image/png', 'image'))).status).toBe(422);
    expect((await upload(form(PNG), p.publicKey)).status).toBe(401);
    expect((await h.request('POST', '/uploads/image', { body: form(PNG), raw: true })).status).toBe(401);
  });
});

describe('GET /uploads/:projectId/:file', () => {
  it("404s for another project's path, unknown files and traversal attempts", async () => {
    const res = await upload(form(PNG));
    const file = `${res.body.id}.png`;
    const other = await createProject(h);
    const paths = [
      `/uploads/${other.id}/${file}`,
      `/uploads/${p.id}/${randomUUID()}.png`,
      `/uploads/${p.id}/${res.body.id}.gif`,
      `/uploads/not-a-uuid/${file}`,
      `/uploads/${p.id}/..%2F..%2F..%2Fetc%2Fpasswd`,
      `/uploads/${p.id}/%2E%2E`,
      `/uploads/..%2F${p.id}/${file}`,
    ];
    for (const pth of paths) {
      const r = await h.request('GET', pth);
      expect(r.status, pth).toBe(404);
    }
    expect((await h.request('GET', `/uploads/${p.id}/${file}`)).status).toBe(200);
  });
});

/** A project's uploads have a quota (finding 12 of "Hardening II"). */
describe('UPLOAD_QUOTA_MB', () => {
  let q: Harness;
  let qp: TestProject;
  beforeAll(async () => {
    q = await createHarness({ env: { UPLOAD_QUOTA_MB: '1' } });
    qp = await createProject(q);
  });
  afterAll(() => q?.close());

  it('refuses an upload past the quota with 413, stores nothing, and lets two concurrent ones not pass it together', async () => {
    const big = Buffer.concat([PNG, Buffer.alloc(600 * 1024, 7)]);
    const send = () => q.request('POST', '/uploads/image', { key: qp.secretKey, body: form(big), raw: true });
    const both = await Promise.all([send(), send()]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 413]);
    const refused = both.find((r) => r.status === 413)!;
    expect(refused.body.error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringMatching(/of its 1 MB; this one \(0\.6 MB\) does not fit/),
    });
    expect(await q.sql('select count(*)::int as n from uploads where project_id = $1', [qp.id])).toEqual([{ n: 1 }]);
    const files = await readdir(path.join(q.dataDir, 'uploads', qp.id));
    expect(files).toHaveLength(1);
    // What still fits is taken.
    expect((await q.request('POST', '/uploads/image', { key: qp.secretKey, body: form(PNG), raw: true })).status).toBe(
      201,
    );
  });
});
