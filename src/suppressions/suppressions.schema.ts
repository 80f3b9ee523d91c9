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

/** Part of an address to look for (any case; matched literally). An empty one is no filter. */
const search = z
  .string()
  .trim()
  .toLowerCase()
  .max(320)
  .optional()
  .transform((s) => s || undefined);

/** `GET /suppressions/export` query: the list's filters, all rows. */
export const exportSuppressionsQuery = z.object({ reason: suppressionReason.optional(), search });
export type ExportSuppressionsQuery = z.infer<typeof exportSuppressionsQuery>;

/** `GET /suppressions` query. */
export const listSuppressionsQuery = exportSuppressionsQuery.extend({
  limit: limitParam,
  cursor: z.string().max(2000).optional(),
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

/** `POST /suppressions/import`: counts of the file's rows, and the rows that were not usable (none of them added). */
export const importSuppressionsOut = z.object({
  rows: z.number().int().meta({ description: 'Data rows read (the header and empty rows not counted)' }),
  added: z.number().int(),
  alreadySuppressed: z.number().int().meta({ description: 'Addresses already on the list (they keep their reason)' }),
  skipped: z.number().int().meta({ description: 'Rows with every cell empty' }),
  failed: z.number().int().meta({ description: 'Rows without a valid address or with an unknown reason' }),
  errors: z
    .array(z.object({ row: z.number().int(), message: z.string() }))
    .meta({ description: 'The first 100 failed rows; the header is row 1, as in a spreadsheet' }),
});
