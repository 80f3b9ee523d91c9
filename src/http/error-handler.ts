import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { fromDatabaseError } from './db-errors.js';
import { AppError, errorBody, type FieldError } from './errors.js';
import { zodIssuesToFieldErrors } from './zod-issues.js';

/** Maps anything thrown in a request to an {@link AppError}; unknown errors become 500. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as FastifyError & { validationContext?: string };
  if (hasZodFastifySchemaValidationErrors(e)) {
    const where = e.validationContext;
    const prefix = where && where !== 'body' ? where : undefined;
    // The provider flattens each zod issue to {keyword, instancePath, message, params}; rebuild it.
    const issues = e.validation.map((v) => ({
      ...(v.params as object),
      code: v.keyword,
      message: v.message,
      path: (v.instancePath ?? '').split('/').filter(Boolean),
    })) as unknown as Parameters<typeof zodIssuesToFieldErrors>[0];
    const errors: FieldError[] = zodIssuesToFieldErrors(issues, prefix);
    return new AppError(
      'VALIDATION_ERROR',
      `Invalid ${where ?? 'request'}: ${errors.map((x) => `${x.field}: ${x.message}`).join('; ')}`,
      { errors },
    );
  }
  const code = e?.code ?? '';
  const status = e?.statusCode ?? 500;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
    return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large');
  }
  // Broken JSON, empty JSON body, wrong content type: 400, never 415.
  if (
    code.startsWith('FST_ERR_CTP_') ||
    (e as { type?: string })?.type === 'entity.parse.failed' ||
    e instanceof SyntaxError
  ) {
    return new AppError(
      'BAD_REQUEST',
      code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? 'Send a JSON body with Content-Type: application/json'
        : `Malformed request body: ${e.message}`,
    );
  }
  const fromDb = fromDatabaseError(err);
  if (fromDb) return fromDb;
  if (status >= 400 && status < 500) {
    const map: Record<number, AppError['code']> = {
      401: 'UNAUTHORIZED',
      403: 'FORBIDDEN',
      404: 'RESOURCE_NOT_FOUND',
      409: 'CONFLICT',
      429: 'RATE_LIMIT_EXCEEDED',
    };
    return new AppError(map[status] ?? 'BAD_REQUEST', e.message || 'Bad request');
  }
  return new AppError('INTERNAL_SERVER_ERROR', 'Unexpected error');
}

/** Installs the one error handler and the 404 handler. */
export function registerErrorHandler(app: FastifyInstance, now: () => Date): void {
  app.setErrorHandler(async (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    let appErr: AppError;
    try {
      appErr = toAppError(err);
    } catch (mapErr) {
      req.log.error({ err: mapErr }, 'error mapping failed');
      appErr = new AppError('INTERNAL_SERVER_ERROR', 'Unexpected error');
    }
    if (appErr.status >= 500) req.log.error({ err }, 'request failed');
    // A database refusal turned into a 4xx: the route's own checks missed the value (db-errors.ts).
    else if (err !== appErr && appErr.details?.sqlState) req.log.warn({ err }, 'database refused a request value');
    if (appErr.headers) reply.headers(appErr.headers);
    reply.code(appErr.status);
    if (appErr.simple) return reply.send({ error: appErr.message });
    return reply.send(errorBody(appErr, req.id, now()));
  });
  app.setNotFoundHandler(async (req, reply) => {
    const e = new AppError('RESOURCE_NOT_FOUND', `Route ${req.method} ${req.url.split('?')[0]} not found`);
    reply.code(404).send(errorBody(e, req.id, now()));
  });
}
