/**
 * CSV cells as suppression exports write them (RFC 4180): a cell holding a comma, a double quote, CR
 * or LF is quoted, its quotes doubled. A cell that a spreadsheet would run as a formula (starting with
 * `=`, `+`, `-`, `@`, tab or CR: OWASP "CSV injection") gets a leading `'`, which
 * {@link unguardCell} takes off again on import, so an export imports back unchanged.
 */
export function csvCell(value: string): string {
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** One CSV line (CRLF-terminated, RFC 4180) of the given cells. */
export const csvLine = (cells: string[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/** A cell read back: the `'` that {@link csvCell} put before a formula-like value is dropped. */
export const unguardCell = (cell: string): string => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);
