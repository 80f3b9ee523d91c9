import { AppError } from './errors.js';

/**
 * The error a multipart read failure means for the client: what @fastify/multipart reports itself
 * (its `FST_*` errors with a 4xx status: limits, file too large) and AppErrors pass unchanged; any
 * other failure of busboy to parse the body (no boundary, a part cut short, a broken header) is the
 * client's malformed body, 400 BAD_REQUEST, never a 500.
 */
export function multipartReadError(err: unknown): unknown {
  const e = err as { code?: unknown; statusCode?: unknown; message?: unknown } | undefined;
  if (err instanceof AppError) return err;
  if (
    typeof e?.code === 'string' &&
    e.code.startsWith('FST_') &&
    typeof e.statusCode === 'number' &&
    e.statusCode < 500
  )
    return err;
  return new AppError('BAD_REQUEST', `Malformed multipart body: ${String(e?.message ?? err)}`, {
    suggestion: 'Send multipart/form-data with the file in the field "file".',
  });
}
