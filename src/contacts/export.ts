import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { csvLine } from '../lib/csv.js';
import { filterSql, listPage, type ListFilter } from './contacts.repo.js';

/** Rows read per query of an export: memory holds one page, whatever the size of the project. */
export const EXPORT_PAGE = 1000;
/** At most this many data keys become columns (the most common first); the rest are left out. */
export const EXPORT_MAX_DATA_COLUMNS = 200;

/**
 * The data keys of the contacts matching the filter, most common first (at most
 * {@link EXPORT_MAX_DATA_COLUMNS}), then by name: the export's columns after email and subscribed.
 */
async function dataKeys(db: Db, projectId: string, f: ListFilter): Promise<string[]> {
  const r = await db.execute<{ k: string }>(sql`select k from contacts, jsonb_object_keys(data) as k
    where ${filterSql(projectId, f)} group by k order by count(*) desc, k limit ${EXPORT_MAX_DATA_COLUMNS}`);
  return r.rows.map((x) => x.k).sort((a, b) => a.localeCompare(b));
}

/**
 * `GET /contacts/export`: the contacts matching the list filters as a CSV stream (UTF-8, CRLF lines),
 * columns `email, subscribed, createdAt` then the data keys alphabetically. Pages of
 * {@link EXPORT_PAGE} rows are read one at a time by email (keyset on the unique index), each only
 * when the client has taken the previous one, so memory stays bounded however many contacts match.
 * The file re-imports as is (`POST /contacts/import`): objects are written as JSON text.
 */
export async function exportCsv(db: Db, projectId: string, f: ListFilter): Promise<Readable> {
  const keys = await dataKeys(db, projectId, f);
  let after: { key: string; id: string } | undefined;
  let done = false;
  let headerSent = false;
  return new Readable({
    async read() {
      try {
        if (!headerSent) {
          headerSent = true;
          this.push(csvLine(['email', 'subscribed', 'createdAt', ...keys]));
          return;
        }
        if (done) {
          this.push(null);
          return;
        }
        const rows = await listPage(db, projectId, { ...f, sort: 'email', dir: 'asc', limit: EXPORT_PAGE, after });
        const page = rows.slice(0, EXPORT_PAGE);
        done = rows.length <= EXPORT_PAGE;
        const last = page.at(-1);
        if (last) after = { key: last.sortKey, id: last.id };
        const text = page
          .map((c) => csvLine([c.email, c.subscribed, c.createdAt.toISOString(), ...keys.map((k) => c.data[k])]))
          .join('');
        if (text) this.push(text);
        if (done) this.push(null);
      } catch (err) {
        this.destroy(err as Error);
      }
    },
  });
}
