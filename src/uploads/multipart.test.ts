import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { PART_BYTES } from './multipart.js';
import { s3Storage, type Storage } from './storage.js';

/** The streaming put of S3 storage (exports): one PutObject for a small body, 8 MiB parts for a large one. */
describe('S3 streaming put', () => {
  let dir: string;
  let server: S3rver;
  let storage: Storage;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pigeon-s3-mp-'));
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: 'exp' }],
    });
    const { port } = await server.run();
    storage = s3Storage(
      loadConfig({
        S3_BUCKET: 'exp',
        S3_ENDPOINT: `http://127.0.0.1:${port}`,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        S3_FORCE_PATH_STYLE: 'true',
        LOG_LEVEL: 'silent',
      }),
    );
  });
  afterAll(async () => {
    storage?.close();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const bytesOf = async (key: string) => {
    const o = await storage.get(key);
    const chunks: Buffer[] = [];
    for await (const c of o!.stream) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  it('writes a small stream as one object', async () => {
    async function* body() {
      yield 'a,b\r\n';
      yield Buffer.from('1,2\r\n');
    }
    expect(await storage.putStream('exports/p/small.csv', body(), 'text/csv')).toBe(10);
    expect((await bytesOf('exports/p/small.csv')).toString()).toBe('a,b\r\n1,2\r\n');
  });

  it('writes a stream of 2.5 parts as a multipart upload, byte for byte', async () => {
    const chunk = Buffer.alloc(1024 * 1024);
    const whole: Buffer[] = [];
    async function* body() {
      for (let i = 0; i < (PART_BYTES / chunk.length) * 2.5; i++) {
        const c = Buffer.from(chunk.fill(i % 251));
        whole.push(c);
        yield c;
      }
    }
    const n = await storage.putStream('exports/p/large.csv', body(), 'text/csv');
    expect(n).toBe(PART_BYTES * 2.5);
    expect(sha(await bytesOf('exports/p/large.csv'))).toBe(sha(Buffer.concat(whole)));
  });

  it('aborts the upload and rejects when the body fails midway', async () => {
    async function* body() {
      yield Buffer.alloc(PART_BYTES + 10);
      throw new Error('database went away');
    }
    await expect(storage.putStream('exports/p/broken.csv', body(), 'text/csv')).rejects.toThrow('database went away');
    expect(await storage.get('exports/p/broken.csv')).toBeNull();
  });
});
