import { z } from 'zod';
import { invalid } from '../http/errors.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A date-time query parameter: an ISO 8601 date or date-time (`2030-01-31`, `2030-01-31T10:00:00Z`).
 * Anything else (free text that `Date.parse` would guess at) is a 422.
 */
export const dateParam = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/, {
    message: 'Must be an ISO 8601 date or date-time',
  })
  .refine((s) => !Number.isNaN(Date.parse(s)), { message: 'Must be a valid date' })
  .transform((s) => new Date(s));

export const rangeQuery = { from: dateParam.optional(), to: dateParam.optional() };

/** A time range `[from, to)` with both ends set. */
export interface Range {
  from: Date;
  to: Date;
}

/**
 * Resolves `from`/`to` query values: `to` defaults to now, `from` to 30 days before `to`.
 * @throws AppError 422 VALIDATION_ERROR (field `from`) when `from` is not before `to`.
 */
export function resolveRange(q: { from?: Date; to?: Date }, now: Date, defaultDays = 30): Range {
  const to = q.to ?? now;
  const from = q.from ?? new Date(to.getTime() - defaultDays * DAY_MS);
  if (from.getTime() >= to.getTime()) throw invalid('from', '"from" must be before "to"', 'custom');
  return { from, to };
}

/** `part / whole` as a percentage with two decimals; 0 when `whole` is 0. */
export const rate = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 10000) / 100 : 0);
