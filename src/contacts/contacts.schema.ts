import { z } from 'zod';

/** Free-form `data` of a request (api.md §2.1); values are sorted by `splitData`. */
const dataField = z.record(z.string(), z.unknown()).nullish();

/**
 * `POST /contacts` (api.md §4.2). `email` is optional here on purpose: a missing email is a 400 with
 * the simple `{error}` body (api.md §7.2), checked in the handler, while a malformed one is a 422.
 */
export const createContactBody = z.object({
  email: z.string().nullish(),
  subscribed: z.boolean().optional(),
  data: dataField,
});

/** `PATCH /contacts/:id` (api.md §4.2): every field optional. */
export const patchContactBody = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email({ message: 'Invalid email' })).optional(),
  subscribed: z.boolean().optional(),
  data: dataField,
});

/**
 * `GET /contacts` query (api.md §4.2). Kept as strings so that the lenient rules of the spec apply in
 * the service: `limit` is clamped into 1..100, unknown `sort`/`dir` fall back to the defaults.
 */
export const listContactsQuery = z.object({
  limit: z.string().regex(/^-?\d+$/, 'limit must be an integer').optional(),
  cursor: z.string().max(2000).optional(),
  search: z.string().max(320).optional(),
  subscribed: z.enum(['true', 'false']).optional(),
  sort: z.string().optional(),
  dir: z.string().optional(),
});

/** `POST /contacts/lookup` (decisions.md: request shapes; api.md §8: at most 500 emails). */
export const lookupBody = z.object({
  emails: z.array(z.string().trim().min(1).max(320)).min(1).max(500),
});

/** Bulk endpoints (api.md §8: at most 1,000 ids; decisions.md: `{contactIds}`). */
export const bulkBody = z.object({
  contactIds: z.array(z.uuid({ message: 'Invalid contact id' })).min(1).max(1000),
});

export const idParams = z.object({ id: z.string() });
export const jobParams = z.object({ jobId: z.string() });
export const fieldParams = z.object({ field: z.string().min(1).max(200) });

export type ListContactsQuery = z.infer<typeof listContactsQuery>;
