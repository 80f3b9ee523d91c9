import { z } from 'zod';
import { limitParam } from '../events/events.schema.js';
import { cursorPage, isoDateTime } from '../http/responses.js';
import { SUPPRESSION_REASONS } from './reasons.js';

export const suppressionReason = z.enum(SUPPRESSION_REASONS);

/** An address as contacts store it: trimmed, lower-cased, checked. */
const address = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'Invalid email' }));

/** `GET /suppressions` query. */
export const listSuppressionsQuery = z.object({
  limit: limitParam,
  cursor: z.string().max(2000).optional(),
  reason: suppressionReason.optional(),
});
export type ListSuppressionsQuery = z.infer<typeof listSuppressionsQuery>;

/** `POST /suppressions` `{emails, reason?}`: at most 1,000 addresses; `reason` defaults to `manual`. */
export const addSuppressionsBody = z.object({
  emails: z.array(address).min(1).max(1000),
  reason: suppressionReason.default('manual'),
});

export const emailParams = z.object({ email: z.string().min(1).max(320) });

/** One suppressed address. */
export const suppressionOut = z
  .object({
    email: z.string(),
    reason: suppressionReason,
    createdAt: isoDateTime,
  })
  .meta({ id: 'Suppression' });

export const suppressionListOut = cursorPage(suppressionOut);

/** `POST /suppressions`: how many addresses were added and how many were already suppressed (kept as they were). */
export const addSuppressionsOut = z.object({
  added: z.number().int(),
  alreadySuppressed: z.number().int(),
});

/** The `suppression` field of a contact: its address's entry, or null. */
export const contactSuppressionOut = z.object({ reason: suppressionReason, createdAt: isoDateTime }).nullable();
