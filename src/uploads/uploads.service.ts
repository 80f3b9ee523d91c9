import { and, eq, sql } from 'drizzle-orm';
import { uploads } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, invalid, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import type { Storage } from './storage.js';

/** Largest accepted image: 5 MB. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * Image types accepted, by sniffed content (images only, whatever the name or type claims). SVG is
 * refused: it can carry scripts, and serving it from this origin would need sanitising.
 */
const ALLOWED: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

const FILE_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(png|jpg|gif|webp)$/;

/**
 * Stores an image in `storage` under the key `<projectId>/<id>.<ext>` with its `uploads` row and
 * returns `{id, url, contentType, size}`; `url` is public (`storage.publicUrl(key)`). Nothing is
 * written unless the content is an accepted image; the object is removed again if the row fails.
 * @throws AppError 422 (field `file`, code `invalid_file_type`) unless the bytes are PNG, JPEG, GIF or WebP;
 *   413 PAYLOAD_TOO_LARGE past the project's `UPLOAD_QUOTA_MB`.
 */
export async function storeImage(deps: Deps, storage: Storage, projectId: string, bytes: Buffer) {
  // Loaded on first upload: file-type pulls in Node's web streams and fetch (undici), several MB of
  // memory an instance that never uploads should not hold.
  const { fileTypeFromBuffer } = await import('file-type');
  const sniffed = await fileTypeFromBuffer(bytes);
  const ext = sniffed ? ALLOWED[sniffed.mime] : undefined;
  if (!sniffed || !ext) {
    throw invalid(
      'file',
      `Only PNG, JPEG, GIF and WebP images are accepted${sniffed ? ` (got ${sniffed.mime})` : ''}`,
      'invalid_file_type',
    );
  }
  const id = newId();
  const storageKey = `${projectId}/${id}.${ext}`;
  await deps.db
    .transaction(async (tx) => {
      // One upload of a project at a time past this point: two cannot pass the quota together.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`uploads:${projectId}`}))`);
      await checkQuota(deps, tx, projectId, bytes.length);
      await storage.put(storageKey, bytes, sniffed.mime);
      try {
        await tx.insert(uploads).values({
          id,
          projectId,
          storageKey,
          contentType: sniffed.mime,
          size: bytes.length,
          createdAt: deps.clock.now(),
        });
      } catch (err) {
        await storage.remove(storageKey);
        throw err;
      }
    })
    .catch(async (err: unknown) => {
      // The commit itself failed after the object was written: it must not stay without its row.
      if (!(err instanceof AppError)) await storage.remove(storageKey).catch(() => undefined);
      throw err;
    });
  return { id, url: storage.publicUrl(storageKey), contentType: sniffed.mime, size: bytes.length };
}

const MB = 1024 * 1024;

/**
 * Refuses an upload of `bytes` that would take the project's images past `UPLOAD_QUOTA_MB` (0: no
 * quota). Call with the project's upload lock held.
 * @throws AppError 413 PAYLOAD_TOO_LARGE with the quota and the current use.
 */
async function checkQuota(deps: Deps, tx: Pick<Deps['db'], 'select'>, projectId: string, bytes: number): Promise<void> {
  const quotaMb = deps.config.UPLOAD_QUOTA_MB;
  if (!quotaMb) return;
  const [{ used }] = await tx
    .select({ used: sql<string>`coalesce(sum(${uploads.size}), 0)` })
    .from(uploads)
    .where(eq(uploads.projectId, projectId));
  if (Number(used) + bytes > quotaMb * MB) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `This project's images already take ${(Number(used) / MB).toFixed(1)} MB of its ${quotaMb} MB; this one (${(bytes / MB).toFixed(1)} MB) does not fit`,
      {
        details: { quotaBytes: quotaMb * MB, usedBytes: Number(used), fileBytes: bytes },
        suggestion: 'Use images already uploaded, or ask the server administrator to raise UPLOAD_QUOTA_MB.',
      },
    );
  }
}

/**
 * Opens a stored image for `GET /uploads/:projectId/:file` (from disk, or streamed from the bucket).
 * Names are matched against the exact `<uuid>.<ext>` pattern and the row of that project before any
 * key is built, so nothing outside the uploads can be reached. The content type is the row's (sniffed
 * at upload), not the storage's.
 * @throws AppError 404 for anything else (unknown file, another project's file, traversal attempts, a
 * row whose object is gone).
 */
export async function openImage(deps: Deps, storage: Storage, projectId: string, fileName: string) {
  const m = FILE_NAME.exec(fileName);
  if (!m || !isUuid(projectId)) throw notFound('File');
  const [row] = await deps.db
    .select()
    .from(uploads)
    .where(and(eq(uploads.id, m[1]), eq(uploads.projectId, projectId)))
    .limit(1);
  if (!row || row.storageKey !== `${projectId}/${fileName}`) throw notFound('File');
  const obj = await storage.get(row.storageKey);
  if (!obj) throw notFound('File');
  return { stream: obj.stream, contentType: row.contentType, size: row.size };
}
