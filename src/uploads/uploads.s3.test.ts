import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

/** Uploads in S3-compatible storage when configured. */

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const CREDS = { S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' };

let s3dir: string;
let server: S3rver;
let endpoint: string;
let client: S3Client;

beforeAll(async () => {
  s3dir = await mkdtemp(path.join(tmpdir(), 'pigeon-s3-'));
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: s3dir,
    configureBuckets: [{ name: 'served-by-pigeon' }, { name: 'served-by-bucket' }],
  });
  const addr = await server.run();
  endpoint = `http://127.0.0.1:${addr.port}`;
  client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
});
afterAll(async () => {
  client?.destroy();
  await server?.close();
  await rm(s3dir, { recursive: true, force: true });
});

async function objectBytes(bucket: string, key: string) {
  const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return { bytes: Buffer.from(await out.Body!.transformToByteArray()), contentType: out.ContentType };
}
async function keysIn(bucket: string) {
  const out = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (out.Contents ?? []).map((o) => o.Key);
}

function form(bytes: Buffer, name = 'image.png', type = 'image/png') {
  const f = new FormData();
  f.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  return f;
}

describe('uploads in S3, served by Pigeon (no S3_PUBLIC_URL)', () => {
  const bucket = 'served-by-pigeon';
  let h: Harness;
  let p: TestProject;
  beforeAll(async () => {
    h = await createHarness({ env: { S3_BUCKET: bucket, S3_ENDPOINT: endpoint, ...CREDS } });
    p = await createProject(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('reports storage s3 in GET /config', async () => {
    const res = await h.request('GET', '/config');
    expect(res.status).toBe(200);
    expect(res.body.storage).toBe('s3');
  });

  it('puts the PNG in the bucket, not on disk, and streams it back at the answered URL', async () => {
    const res = await h.request('POST', '/uploads/image', { key: p.secretKey, body: form(PNG), raw: true });
    expect(res.status).toBe(201);
    const key = `${p.id}/${res.body.id}.png`;
    expect(res.body).toEqual({
      id: expect.any(String),
      url: `${h.url}/uploads/${key}`,
      contentType: 'image/png',
      size: PNG.length,
    });

    const stored = await objectBytes(bucket, key);
    expect(stored.bytes).toEqual(PNG);
    expect(stored.contentType).toBe('image/png');
    const [row] = await h.sql('select storage_key from uploads where id = $1', [res.body.id]);
    expect(row.storage_key).toBe(key);
    await expect(stat(path.join(h.dataDir, 'uploads', key))).rejects.toThrow(/ENOENT/);

    const served = await fetch(res.body.url); // no credential
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
  });

  it('refuses a non-image with 422 and writes nothing to the bucket', async () => {
    const before = await keysIn(bucket);
    const res = await h.request('POST', '/uploads/image', {
      key: p.secretKey,
      body: form(Buffer.from('<html><script>alert(1)</script></html>'), 'x.png'),
      raw: true,
    });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0]).toMatchObject({ field: 'file', code: 'invalid_file_type' });
    expect(await keysIn(bucket)).toEqual(before);
  });

  it("404s for another project's path and for a row whose object is gone from the bucket", async () => {
    const res = await h.request('POST', '/uploads/image', { key: p.secretKey, body: form(PNG), raw: true });
    const other = await createProject(h);
    expect((await h.request('GET', `/uploads/${other.id}/${res.body.id}.png`)).status).toBe(404);
    const ghost = randomUUID();
    await h.sql(
      "insert into uploads (id, project_id, storage_key, content_type, size, created_at) values ($1, $2, $3, 'image/png', 1, now())",
      [ghost, p.id, `${p.id}/${ghost}.png`],
    );
    expect((await h.request('GET', `/uploads/${p.id}/${ghost}.png`)).status).toBe(404);
  });
});

describe('uploads in S3, served from S3_PUBLIC_URL', () => {
  const bucket = 'served-by-bucket';
  let h: Harness;
  let p: TestProject;
  beforeAll(async () => {
    // s3rver answers anonymous path-style GETs, so the bucket itself plays the public CDN.
    h = await createHarness({
      env: { S3_BUCKET: bucket, S3_ENDPOINT: endpoint, S3_PUBLIC_URL: `${endpoint}/${bucket}/`, ...CREDS },
    });
    p = await createProject(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers ${S3_PUBLIC_URL}/<key>, which serves the same bytes', async () => {
    const res = await h.request('POST', '/uploads/image', { key: p.secretKey, body: form(PNG), raw: true });
    expect(res.status).toBe(201);
    const key = `${p.id}/${res.body.id}.png`;
    expect(res.body.url).toBe(`${endpoint}/${bucket}/${key}`);
    expect((await objectBytes(bucket, key)).bytes).toEqual(PNG);

    const served = await fetch(res.body.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    // Pigeon's own route still streams it, so links made before S3_PUBLIC_URL was set keep working.
    const viaPigeon = await fetch(`${h.url}/uploads/${key}`);
    expect(Buffer.from(await viaPigeon.arrayBuffer())).toEqual(PNG);
  });
});
