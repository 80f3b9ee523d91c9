/**
 * CSV cells as Pigeon's exports write them (contacts, suppressions; RFC 4180): a cell holding a comma,
 * a double quote, CR or LF is quoted, its quotes doubled. A text that a spreadsheet would run as a
 * formula (starting with `=`, `+`, `-`, `@`, tab or CR: OWASP "CSV injection") gets a leading `'`,
 * which {@link unguardCell} takes off again on import, so an export imports back unchanged. Numbers
 * (a `-3`) are written as they are; null and undefined as an empty cell; objects and lists as JSON.
 */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  let s = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One CSV line (CRLF-terminated, RFC 4180) of the given cells. */
export const csvLine = (cells: unknown[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/** A cell read back: the `'` that {@link csvCell} put before a formula-like value is dropped. */
export const unguardCell = (cell: string): string => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);
