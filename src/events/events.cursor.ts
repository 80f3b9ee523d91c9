import { sql, type SQL } from 'drizzle-orm';
import { invalid } from '../http/errors.js';

/**
 * Keyset cursors over (timestamp, key), newest first. The timestamp travels in microseconds because
 * PostgreSQL keeps microseconds and a millisecond cursor would skip or repeat rows of the same
 * millisecond. The cursor is opaque to clients: base64url of `<µs>|<key>`.
 */
export interface Cursor {
  /** ISO 8601 UTC with six fractional digits, for a `::timestamptz` parameter. */
  at: string;
  key: string;
}

/** Microseconds since the epoch → ISO string with microseconds (`2026-01-01T00:00:00.123456Z`). */
export function usToIso(us: number): string {
  const ms = Math.floor(us / 1000);
  const rest = String(us - ms * 1000).padStart(3, '0');
  return new Date(ms).toISOString().replace('Z', `${rest}Z`);
}

export const encodeCursor = (atUs: number, key: string): string => Buffer.from(`${atUs}|${key}`).toString('base64url');

/** @throws AppError 422 VALIDATION_ERROR (field `cursor`) when the cursor was not made by {@link encodeCursor}. */
export function decodeCursor(cursor: string, keyPattern: RegExp): Cursor {
  const raw = Buffer.from(cursor, 'base64url').toString();
  const m = /^(\d{1,17})\|(.+)$/.exec(raw);
  if (!m || !keyPattern.test(m[2]))
    throw invalid('cursor', 'Invalid cursor: pass the cursor of a previous page', 'invalid_string');
  return { at: usToIso(Number(m[1])), key: m[2] };
}

/**
 * A timestamptz expression as the ISO string `Date#toISOString` makes (UTC, milliseconds). Raw
 * `db.execute` rows carry timestamps as PostgreSQL text, so times are formatted in SQL.
 */
export const isoSql = (expr: SQL): SQL => sql`to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
