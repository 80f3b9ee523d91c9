import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

/** Exports with S3 storage: the file goes to the bucket under exports/, Pigeon streams it to the signed link. */
describe('exports in S3', () => {
  let dir: string;
  let server: S3rver;
  let h: Harness;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pigeon-s3-exp-'));
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: 'data' }],
    });
    const { port } = await server.run();
    h = await createHarness({
      worker: true,
      env: {
        S3_BUCKET: 'data',
        S3_ENDPOINT: `http://127.0.0.1:${port}`,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        S3_FORCE_PATH_STYLE: 'true',
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the export to the bucket and serves it through the signed link', async () => {
    const p = await createProject(h);
    await h.sql(
      `insert into suppressions (project_id, email, reason, created_at)
       select $1, 's' || i || '@example.test', 'manual', now() - make_interval(secs => i) from generate_series(1, 3000) i`,
      [p.id],
    );
    const res = await h.request('POST', '/exports', {
      key: p.secretKey,
      body: { kind: 'suppressions', format: 'jsonl' },
    });
    expect(res.status).toBe(202);
    await expect
      .poll(async () => (await h.request('GET', `/exports/${res.body.id}`, { key: p.secretKey })).body.state, {
        timeout: 20_000,
      })
      .toBe('done');
    const e = (await h.request('GET', `/exports/${res.body.id}`, { key: p.secretKey })).body;
    expect(e.rowsDone).toBe(3000);
    const file = await fetch(e.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const rows = (await file.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(3000);
    expect(rows[0]).toEqual({ email: 's3000@example.test', reason: 'manual', createdAt: expect.any(String) });
    // Nothing on disk: the file is in the bucket.
    expect(await readdir(path.join(h.dataDir, 'exports')).catch(() => [])).toEqual([]);
  });
});
