import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.js';
import { putMultipart } from './multipart.js';

/** A stored object opened for reading. */
export interface StoredObject {
  stream: Readable;
  contentType: string;
}

/**
 * Where uploaded images live: local disk under the data directory, or S3-compatible storage when
 * configured. Keys are `<projectId>/<uuid>.<ext>`, built
 * and validated by the uploads service; implementations never see client-chosen strings.
 */
export interface Storage {
  /** Reported by `GET /config` as `storage`. */
  readonly kind: 'disk' | 's3';
  /** Writes `body` under `key`. Rejects if the object cannot be written. */
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /**
   * Writes a stream under `key` in bounded memory (a file written as it comes; on S3 a multipart
   * upload in 8 MiB parts). A key that exists is refused. @returns the bytes written.
   */
  putStream(key: string, body: AsyncIterable<Buffer | string>, contentType: string): Promise<number>;
  /** Opens `key`; null when there is no such object. */
  get(key: string): Promise<StoredObject | null>;
  /** Best-effort removal (rollback of a failed upload); never rejects. */
  remove(key: string): Promise<void>;
  /** The public URL an uploaded object is served at (the answer of `POST /uploads/image`). */
  publicUrl(key: string): string;
  /** Releases connections (app shutdown). */
  close(): void;
}

const MIME_OF_EXT: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** URL of Pigeon's own `GET /uploads/:projectId/:file` for `key`. */
const servedByPigeon = (config: Config, key: string) => `${config.PUBLIC_URL}/uploads/${key}`;

/**
 * Files under `DATA_DIR/<dir>/<key>` (`uploads` by default; exports use `exports`, which nothing serves
 * publicly), served by Pigeon at `PUBLIC_URL/uploads/<key>`.
 */
export function diskStorage(config: Config, dir = 'uploads'): Storage {
  const root = path.resolve(config.DATA_DIR, dir);
  const fileOf = (key: string) => path.join(root, ...key.split('/'));
  return {
    kind: 'disk',
    async put(key, body) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, body, { flag: 'wx' });
    },
    async putStream(key, body) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      let bytes = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          done(null, chunk);
        },
      });
      try {
        await pipeline(Readable.from(body, { objectMode: false }), count, createWriteStream(file, { flags: 'wx' }));
      } catch (err) {
        await unlink(file).catch(() => undefined);
        throw err;
      }
      return bytes;
    },
    async get(key) {
      const file = fileOf(key);
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) return null;
      return {
        stream: createReadStream(file),
        contentType: MIME_OF_EXT[path.extname(file).slice(1)] ?? 'application/octet-stream',
      };
    },
    async remove(key) {
      await unlink(fileOf(key)).catch(() => undefined);
    },
    publicUrl: (key) => servedByPigeon(config, key),
    close() {},
  };
}

/**
 * Objects in `S3_BUCKET` (AWS S3, or MinIO/R2/… through `S3_ENDPOINT`). Served from
 * `S3_PUBLIC_URL/<key>` when that is set, else by Pigeon, which streams them from the bucket.
 */
export function s3Storage(config: Config): Storage {
  const bucket = config.S3_BUCKET;
  if (!bucket || !config.S3_ACCESS_KEY_ID || !config.S3_SECRET_ACCESS_KEY)
    throw new Error('S3 storage needs S3_BUCKET and its keys');
  // The AWS SDK is large (tens of MB of heap): loaded on the first upload or download, never by a
  // server that keeps its images on disk.
  let loading: Promise<{ client: S3Client; sdk: typeof import('@aws-sdk/client-s3') }> | undefined;
  const s3 = () =>
    (loading ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: config.S3_REGION,
        endpoint: config.S3_ENDPOINT,
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
        credentials: { accessKeyId: config.S3_ACCESS_KEY_ID!, secretAccessKey: config.S3_SECRET_ACCESS_KEY! },
        // The SDK's default CRC32 checksums (since 3.729) are not understood everywhere (older
        // releases of S3-compatible servers and some gateways); send them only where an operation needs one.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    })));
  return {
    kind: 's3',
    async put(key, body, contentType) {
      const { client, sdk } = await s3();
      await client.send(
        new sdk.PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentType: contentType,
          // Keys are never reused (a fresh UUID each), so a CDN in front may cache for good.
          CacheControl: 'public, max-age=31536000, immutable',
        }),
      );
    },
    async putStream(key, body, contentType) {
      const { client, sdk } = await s3();
      return putMultipart({ client, sdk, bucket, key, contentType }, body);
    },
    async get(key) {
      const { client, sdk } = await s3();
      try {
        const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
        if (!out.Body) return null;
        return { stream: out.Body as Readable, contentType: out.ContentType ?? 'application/octet-stream' };
      } catch (err) {
        const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return null;
        throw err;
      }
    },
    async remove(key) {
      const { client, sdk } = await s3();
      await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: key })).catch(() => undefined);
    },
    publicUrl: (key) => (config.S3_PUBLIC_URL ? `${config.S3_PUBLIC_URL}/${key}` : servedByPigeon(config, key)),
    close: () => void loading?.then(({ client }) => client.destroy()),
  };
}

/** The storage the configuration asks for: S3 when `S3_BUCKET` is set, else the data directory. */
export function storageFromConfig(config: Config): Storage {
  return config.S3_BUCKET ? s3Storage(config) : diskStorage(config);
}
