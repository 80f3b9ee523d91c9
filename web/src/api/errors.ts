import { describeFailure } from './messages';

/** One field problem of a 422 answer (the server's `error.errors[]`); `field` is a dotted path. */
export interface FieldError {
  field: string;
  message: string;
  code?: string;
}

interface Envelope {
  success?: false;
  error?:
    | string
    | {
        code?: string;
        message?: string;
        requestId?: string;
        errors?: FieldError[];
        details?: Record<string, unknown>;
        suggestion?: string;
      };
}

/**
 * A request that did not succeed: a non-2xx answer of the API (its envelope `{success:false,
 * error:{code, message, statusCode, requestId, errors?, details?, suggestion?}}` or the plain
 * `{error}` body), or no answer at all (`status` 0, code `NETWORK_ERROR`). `message`, `title` and
 * `fieldErrors[].message` are the dashboard's sentences for people (api/messages.ts); what the server
 * said is kept in `serverMessage` for the "Details" of an error, with `code` and `requestId` (the
 * `X-Request-ID` the server logged), so a person can report it.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** A heading for the failure ("Could not log in"). */
  readonly title: string;
  /** The server's own `error.message`, for developers. */
  readonly serverMessage: string;
  readonly requestId?: string;
  /** The field problems in words ("Name is required."), each with the server's `field` and `code`. */
  readonly fieldErrors: FieldError[];
  readonly suggestion?: string;
  readonly details?: Record<string, unknown>;

  constructor(opts: {
    status: number;
    code: string;
    message: string;
    requestId?: string;
    fieldErrors?: FieldError[];
    suggestion?: string;
    details?: Record<string, unknown>;
  }) {
    const said = describeFailure({
      status: opts.status,
      code: opts.code,
      message: opts.message,
      fieldErrors: opts.fieldErrors ?? [],
      details: opts.details,
    });
    super(said.message);
    this.name = 'ApiError';
    this.status = opts.status;
    this.code = opts.code;
    this.title = said.title;
    this.serverMessage = opts.message;
    this.requestId = opts.requestId;
    this.fieldErrors = said.fieldErrors;
    this.suggestion = opts.suggestion;
    this.details = opts.details;
  }

  /** True for 401s that mean "no valid session" (not a wrong password on the login form). */
  get isUnauthenticated(): boolean {
    return this.status === 401 && this.code !== 'INVALID_CREDENTIALS';
  }
}

const FALLBACK_CODE: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'RESOURCE_NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMIT_EXCEEDED',
};

/** The {@link ApiError} of a non-2xx `response` whose body was parsed as `body` (JSON or text). */
export function apiErrorFrom(response: Response, body: unknown): ApiError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const env = (body && typeof body === 'object' ? body : {}) as Envelope;
  const fallback = FALLBACK_CODE[response.status] ?? (response.status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'ERROR');
  if (typeof env.error === 'string') {
    return new ApiError({ status: response.status, code: fallback, message: env.error, requestId });
  }
  if (env.error && typeof env.error === 'object') {
    const e = env.error;
    return new ApiError({
      status: response.status,
      code: e.code ?? fallback,
      message: e.message ?? `Request failed (${response.status})`,
      requestId: e.requestId ?? requestId,
      fieldErrors: Array.isArray(e.errors) ? e.errors : [],
      suggestion: e.suggestion,
      details: e.details,
    });
  }
  const text = typeof body === 'string' && body.trim() && body.length < 300 ? `: ${body.trim()}` : '';
  return new ApiError({
    status: response.status,
    code: fallback,
    message: `Request failed with status ${response.status}${text}`,
    requestId,
  });
}

/** The error of a request that got no answer (server down, network lost). */
export function networkError(cause: unknown): ApiError {
  const detail = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
  return new ApiError({
    status: 0,
    code: 'NETWORK_ERROR',
    message: `Could not reach the Pigeon server${detail}. Check that it is running and try again.`,
  });
}

/** Any thrown value as an {@link ApiError} (a bug in the page becomes a generic one, never a blank). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError({ status: 0, code: 'CLIENT_ERROR', message: err instanceof Error ? err.message : String(err) });
}
