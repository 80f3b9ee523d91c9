import type { Deps } from '../deps.js';
import { csvLine } from '../lib/csv.js';
import type { Storage } from '../uploads/storage.js';
import { EXPORT_PAGE, EXPORT_SOURCES, type ExportRow, type PagePosition } from './kinds.js';
import * as repo from './exports.repo.js';
import type { ExportFilter } from './exports.schema.js';
import { exportKey } from './storage.js';

/** How long a finished export's file is kept: 7 days. */
export const EXPORT_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

/** A failure the export's owner can act on or understand; its message is shown as is. */
export class ExportError extends Error {}

/** The MIME type of each format. */
export const EXPORT_TYPES = { csv: 'text/csv; charset=utf-8', jsonl: 'application/x-ndjson; charset=utf-8' } as const;

const cell = (v: unknown) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : v);

/**
 * Runs export `id`: claims it (state `running`), counts its rows, streams them page by page (keyset,
 * kinds.ts) into `storage` under {@link exportKey}, recording `rowsDone` after each page, and marks it
 * `done` with its size and expiry ({@link EXPORT_KEEP_MS}). Memory holds one page and, on S3, one
 * 8 MiB part. An export that is not queued or running (done, failed, gone) is left alone.
 * @throws whatever storage or the database throws (the job retries; its last attempt marks it failed).
 */
export async function runExport(deps: Deps, storage: Storage, id: string): Promise<void> {
  const e = await repo.claimExport(deps.db, id, deps.clock.now());
  if (!e) return;
  const source = EXPORT_SOURCES[e.kind];
  const filter = (e.filter ?? {}) as ExportFilter;
  await repo.setTotal(deps.db, id, await source.count(deps.db, e.projectId, filter));
  let rowsDone = 0;
  const key = exportKey(e.projectId, e.id, e.format);
  const line =
    e.format === 'csv'
      ? (r: ExportRow) => csvLine(source.columns.map((c) => cell(r[c])))
      : (r: ExportRow) => `${JSON.stringify(Object.fromEntries(source.columns.map((c) => [c, r[c] ?? null])))}\n`;
  async function* lines(): AsyncGenerator<string> {
    if (e!.format === 'csv') yield csvLine([...source.columns]);
    let after: PagePosition | undefined;
    for (;;) {
      const { rows, last } = await source.page(deps.db, e!.projectId, filter, after);
      if (rows.length) yield rows.map(line).join('');
      rowsDone += rows.length;
      await repo.setProgress(deps.db, id, rowsDone);
      if (!last || rows.length < EXPORT_PAGE) return;
      after = last;
    }
  }
  // A retried run writes the file again from the start.
  await storage.remove(key);
  const bytes = await storage.putStream(key, lines(), EXPORT_TYPES[e.format]);
  const at = deps.clock.now();
  const finished = await repo.finishExport(deps.db, id, {
    rowsDone,
    bytes,
    storageKey: key,
    at,
    expiresAt: new Date(at.getTime() + EXPORT_KEEP_MS),
  });
  if (!finished) await storage.remove(key);
}
