import { createReadStream } from 'node:fs';
import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { fileTypeFromBuffer } from 'file-type';
import { uploads } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { invalid, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';

/** Largest accepted image (decisions.md: uploads, 5 MB). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * Image types accepted, by sniffed content (decisions.md: images only, checked by content). SVG is
 * refused: it can carry scripts, and serving it from this origin would need sanitising.
 */
const ALLOWED: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

const FILE_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(png|jpg|gif|webp)$/;

const uploadsRoot = (deps: Deps) => path.resolve(deps.config.DATA_DIR, 'uploads');

/**
 * Stores an image under `DATA_DIR/uploads/<projectId>/<id>.<ext>` with its `uploads` row and returns
 * `{id, url, contentType, size}`; `url` is public (`PUBLIC_URL/uploads/<projectId>/<file>`).
 * @throws AppError 422 (field `file`, code `invalid_file_type`) unless the bytes are PNG, JPEG, GIF or WebP.
 */
export async function storeImage(deps: Deps, projectId: string, bytes: Buffer) {
  const sniffed = await fileTypeFromBuffer(bytes);
  const ext = sniffed ? ALLOWED[sniffed.mime] : undefined;
  if (!sniffed || !ext) {
    throw invalid('file', `Only PNG, JPEG, GIF and WebP images are accepted${sniffed ? ` (got ${sniffed.mime})` : ''}`, 'invalid_file_type');
  }
  const id = newId();
  const storageKey = `${projectId}/${id}.${ext}`;
  const dir = path.join(uploadsRoot(deps), projectId);
  const file = path.join(dir, `${id}.${ext}`);
  await mkdir(dir, { recursive: true });
  await writeFile(file, bytes, { flag: 'wx' });
  try {
    await deps.db.insert(uploads).values({ id, projectId, storageKey, contentType: sniffed.mime, size: bytes.length, createdAt: deps.clock.now() });
  } catch (err) {
    await unlink(file).catch(() => undefined);
    throw err;
  }
  return { id, url: `${deps.config.PUBLIC_URL}/uploads/${storageKey}`, contentType: sniffed.mime, size: bytes.length };
}

/**
 * Opens a stored image for `GET /uploads/:projectId/:file`. Names are matched against the exact
 * `<uuid>.<ext>` pattern and the row of that project before any path is built, so nothing outside
 * the uploads folder can be reached.
 * @throws AppError 404 for anything else (unknown file, another project's file, traversal attempts).
 */
export async function openImage(deps: Deps, projectId: string, fileName: string) {
  const m = FILE_NAME.exec(fileName);
  if (!m || !isUuid(projectId)) throw notFound('File');
  const [row] = await deps.db.select().from(uploads).where(and(eq(uploads.id, m[1]), eq(uploads.projectId, projectId))).limit(1);
  if (!row || row.storageKey !== `${projectId}/${fileName}`) throw notFound('File');
  const file = path.join(uploadsRoot(deps), projectId, fileName);
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw notFound('File');
  return { stream: createReadStream(file), contentType: row.contentType, size: info.size };
}
