import { and, eq } from 'drizzle-orm';
import { fileTypeFromBuffer } from 'file-type';
import { uploads } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { invalid, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import type { Storage } from './storage.js';

/** Largest accepted image: 5 MB. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * Image types accepted, by sniffed content (images only, whatever the name or type claims). SVG is
 * refused: it can carry scripts, and serving it from this origin would need sanitising.
 */
const ALLOWED: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

const FILE_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(png|jpg|gif|webp)$/;

/**
 * Stores an image in `storage` under the key `<projectId>/<id>.<ext>` with its `uploads` row and
 * returns `{id, url, contentType, size}`; `url` is public (`storage.publicUrl(key)`). Nothing is
 * written unless the content is an accepted image; the object is removed again if the row fails.
 * @throws AppError 422 (field `file`, code `invalid_file_type`) unless the bytes are PNG, JPEG, GIF or WebP.
 */
export async function storeImage(deps: Deps, storage: Storage, projectId: string, bytes: Buffer) {
  const sniffed = await fileTypeFromBuffer(bytes);
  const ext = sniffed ? ALLOWED[sniffed.mime] : undefined;
  if (!sniffed || !ext) {
    throw invalid('file', `Only PNG, JPEG, GIF and WebP images are accepted${sniffed ? ` (got ${sniffed.mime})` : ''}`, 'invalid_file_type');
  }
  const id = newId();
  const storageKey = `${projectId}/${id}.${ext}`;
  await storage.put(storageKey, bytes, sniffed.mime);
  try {
    await deps.db.insert(uploads).values({ id, projectId, storageKey, contentType: sniffed.mime, size: bytes.length, createdAt: deps.clock.now() });
  } catch (err) {
    await storage.remove(storageKey);
    throw err;
  }
  return { id, url: storage.publicUrl(storageKey), contentType: sniffed.mime, size: bytes.length };
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
  const [row] = await deps.db.select().from(uploads).where(and(eq(uploads.id, m[1]), eq(uploads.projectId, projectId))).limit(1);
  if (!row || row.storageKey !== `${projectId}/${fileName}`) throw notFound('File');
  const obj = await storage.get(row.storageKey);
  if (!obj) throw notFound('File');
  return { stream: obj.stream, contentType: row.contentType, size: row.size };
}
