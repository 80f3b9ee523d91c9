/**
 * The one error type of the service and its code → HTTP status table. Services throw
 * {@link AppError}; only the error handler turns it into a response.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  INVALID_API_KEY: 401,
  FORBIDDEN: 403,
  PROJECT_DISABLED: 403,
  /** The project requires two-factor sign-in (or SSO) and the session signed in with a password alone. */
  TWO_FACTOR_REQUIRED: 403,
  /** Campaign and MARKETING workflow mail paused at a critical bounce or complaint rate (projects/health.ts). */
  SENDING_PAUSED: 403,
  RESOURCE_NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  VALIDATION_ERROR: 422,
  RATE_LIMIT_EXCEEDED: 429,
  BILLING_LIMIT_EXCEEDED: 429,
  INTERNAL_SERVER_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One field-level problem of a 422 (`error.errors[]` of the error envelope). */
export interface FieldError {
  field: string;
  message: string;
  /** zod 3 issue code names or the service's own, e.g. `reserved_event`. */
  code: string;
  received?: unknown;
}

export interface AppErrorOptions {
  errors?: FieldError[];
  details?: Record<string, unknown>;
  suggestion?: string;
  /** Overrides the status of the code table (e.g. 403 carried with INTERNAL_SERVER_ERROR). */
  status?: number;
  /** Reply with the plain `{error}` body instead of the envelope. */
  simple?: boolean;
  /** Extra response headers (e.g. `Retry-After`). */
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly details?: Record<string, unknown>;
  readonly suggestion?: string;
  readonly simple: boolean;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, opts: AppErrorOptions = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = opts.status ?? ERROR_STATUS[code];
    this.errors = opts.errors;
    this.details = opts.details;
    this.suggestion = opts.suggestion;
    this.simple = opts.simple ?? false;
    this.headers = opts.headers;
  }
}

/** 404 `RESOURCE_NOT_FOUND`, used for unknown ids and ids of other projects alike. */
export const notFound = (what: string): AppError => new AppError('RESOURCE_NOT_FOUND', `${what} not found`);

/** 422 `VALIDATION_ERROR` with a single field error. */
export const invalid = (field: string, message: string, code = 'custom', received?: unknown): AppError =>
  new AppError('VALIDATION_ERROR', message, {
    errors: [{ field, message, code, ...(received !== undefined ? { received } : {}) }],
  });

/**
 * 429 `RATE_LIMIT_EXCEEDED` of a budget that refills with time: `message` (a sentence), the seconds to
 * wait as `Retry-After` (at least 1) and in `details` with the budget's `limit` and `windowMs`.
 */
export function rateLimited(
  message: string,
  o: { retryAfterMs: number; limit: number; windowMs?: number; suggestion?: string },
): AppError {
  const seconds = Math.max(1, Math.ceil(o.retryAfterMs / 1000));
  return new AppError('RATE_LIMIT_EXCEEDED', message.replace('{seconds}', String(seconds)), {
    details: {
      limit: o.limit,
      ...(o.windowMs ? { windowSeconds: o.windowMs / 1000 } : {}),
      retryAfterSeconds: seconds,
    },
    suggestion: o.suggestion ?? 'Wait for the number of seconds in the Retry-After header.',
    headers: { 'Retry-After': String(seconds) },
  });
}

/** 400 with the plain `{error}` body. */
export const simpleBadRequest = (message: string): AppError => new AppError('BAD_REQUEST', message, { simple: true });

/** The error envelope `{success: false, error: {code, message, statusCode, requestId, ...}, timestamp}`. */
export function errorBody(err: AppError, requestId: string, now: Date) {
  return {
    success: false as const,
    error: {
      code: err.code,
      message: err.message,
      statusCode: err.status,
      requestId,
      ...(err.errors ? { errors: err.errors } : {}),
      ...(err.details ? { details: err.details } : {}),
      ...(err.suggestion ? { suggestion: err.suggestion } : {}),
    },
    timestamp: now.toISOString(),
  };
}
