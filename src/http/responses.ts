import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from './errors.js';

/**
 * Response schemas shared by every route: the error envelope, the plain `{error}` body, the public
 * `{success: true, data}` envelope and the pieces most resources are made
 * of. Routes declare `response: replies({200: …})` so that `/openapi.json` describes every answer,
 * errors included, and a typed client can be generated from it. The schemas also serialize the
 * replies (fastify-type-provider-zod's serializerCompiler): a key a schema lacks is dropped from
 * the answer, so a schema must name every key its route answers with.
 */

const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** An ISO 8601 UTC date-time string with milliseconds, e.g. `2030-01-31T10:00:00.000Z`. */
export const isoDateTime = z.string().meta({ format: 'date-time' });

/** A resource id (a UUIDv7). Answers are not checked against the format, only documented. */
export const uuidOut = z.string().meta({ format: 'uuid' });

/** Free-form JSON object (contact data, event data, step config, …). */
export const jsonObject = z.record(z.string(), z.unknown());

/** One field-level problem of a 422 (`error.errors[]` of the error envelope). */
export const fieldErrorOut = z.object({
  field: z.string(),
  message: z.string(),
  code: z.string().meta({
    description:
      "zod 3 issue code names (invalid_type, invalid_string, too_big, …) or the service's own (reserved_event, unverified_domain, …)",
  }),
  received: z.unknown().optional(),
});

/** The error envelope of every error; `error.requestId` equals the `X-Request-ID` header. */
export const errorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      statusCode: z.number().int(),
      requestId: z.string(),
      errors: z.array(fieldErrorOut).optional(),
      details: jsonObject.optional(),
      suggestion: z.string().optional(),
    }),
    timestamp: isoDateTime,
  })
  .meta({ id: 'ErrorEnvelope', description: 'Every error of the API' });

/** The plain error body `{error}` (a few dashboard 400s, e.g. a required field missing). */
export const simpleError = z
  .object({ error: z.string() })
  .meta({ id: 'SimpleError', description: 'Plain 400 body {error} of a few dashboard requests' });

/** A 400 that is the plain body for the few cases that use it and the envelope otherwise. */
export const simpleOrEnvelope = z.union([simpleError, errorEnvelope]);

/** The answer of a 204: no body. */
export const noContent = z.undefined().describe('No content');

/** The public API's success envelope `{success: true, data}`. */
export const okEnvelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

/** The cursor envelope `{data, cursor, hasMore, total}`; `total` counts on the first page only (0 later). */
export const cursorPage = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    cursor: z.string().nullable(),
    hasMore: z.boolean(),
    total: z.number().int(),
  });

/** The offset envelope `{data, page, pageSize, total, totalPages}`. */
export const offsetPageOut = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    page: z.number().int(),
    pageSize: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
  });

/** `{success: true}` of the actions that answer nothing else. */
export const successOut = z.object({ success: z.literal(true) });

/** `{jobId}` of the queued endpoints (bulk actions and imports answer 202). */
export const jobIdOut = z.object({ jobId: uuidOut });

/**
 * A route's `response` map: its success schemas plus the error envelope for every 4xx and 5xx, so no
 * route can be documented without its errors. Pass `400: simpleOrEnvelope` where the plain body applies.
 */
export function replies<T extends Record<number, z.ZodType | object>>(
  success: T,
): T & { '4xx': typeof errorEnvelope; '5xx': typeof errorEnvelope } {
  return { ...success, '4xx': errorEnvelope, '5xx': errorEnvelope };
}
