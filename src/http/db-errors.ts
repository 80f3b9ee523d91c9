import { AppError } from './errors.js';

/** Seconds a client is told to wait after the database was too slow or too busy to answer. */
export const RETRY_AFTER_SECONDS = 5;

/** The SQLSTATE of a node-postgres error, also when drizzle wrapped it (`cause`). */
export function sqlState(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  for (const code of [e?.code, e?.cause?.code]) {
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

const messageOf = (err: unknown): string => {
  const e = err as { message?: unknown; cause?: { message?: unknown } } | undefined;
  return String(e?.cause?.message ?? e?.message ?? '');
};

/**
 * Turns the database errors a request can cause into the error they mean, or returns null:
 * - 503 for a statement cancelled by the API's `statement_timeout` (SQLSTATE 57014) and for no
 *   free pool connection within the wait limit: the request may succeed later (`Retry-After`), and
 *   the code stays INTERNAL_SERVER_ERROR (the code table has none of its own for it);
 * - 422 VALIDATION_ERROR for values PostgreSQL refuses (SQLSTATE class 22, data exception: NUL,
 *   out-of-range numbers and dates, malformed text for a type; 54000, e.g. a value too large for its
 *   index). Routes check their input first (input-guard.ts, schemas); this is the net under them, so
 *   a value the checks missed is still the client's 4xx and not a 500.
 */
export function fromDatabaseError(err: unknown): AppError | null {
  const state = sqlState(err);
  if (state === '57014' || /timeout exceeded when trying to connect/i.test(messageOf(err))) {
    return new AppError('INTERNAL_SERVER_ERROR', 'The database did not answer in time; try again', {
      status: 503,
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      suggestion: `Retry after ${RETRY_AFTER_SECONDS} seconds; narrow the request (filters, page size) if it keeps happening.`,
    });
  }
  if (state && (state.startsWith('22') || state === '54000')) {
    const reason = messageOf(err).replace(/\s+/g, ' ').slice(0, 300);
    return new AppError('VALIDATION_ERROR', `A value of the request cannot be stored or compared: ${reason}`, {
      errors: [{ field: 'request', code: 'custom', message: reason }],
      details: { sqlState: state },
    });
  }
  return null;
}
