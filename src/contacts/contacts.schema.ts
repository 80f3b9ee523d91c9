import { z } from 'zod';
import { contactTopicOut, topicChoices } from '../topics/topics.schema.js';
import { cursorPage, isoDateTime, jsonObject, uuidOut } from '../http/responses.js';
import { contactSuppressionOut } from '../suppressions/suppressions.schema.js';

/** Free-form `data` of a request; values are sorted by `splitData`. */
const dataField = z.record(z.string(), z.unknown()).nullish();

/**
 * `POST /contacts`. `email` is optional here on purpose: a missing email is a 400 with
 * the simple `{error}` body, checked in the handler, while a malformed one is a 422.
 */
export const createContactBody = z.object({
  email: z.string().nullish(),
  subscribed: z.boolean().optional(),
  data: dataField,
  /** Topics to join (true) or leave (false), by id or name (topics/topics.schema.ts). */
  topics: topicChoices.optional(),
});

/** `PATCH /contacts/:id`: every field optional. */
export const patchContactBody = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email({ message: 'Invalid email' }))
    .optional(),
  subscribed: z.boolean().optional(),
  data: dataField,
});

/**
 * `GET /contacts` query. Kept as strings so that the lenient rules of the API apply in
 * the service: `limit` is clamped into 1..100, unknown `sort`/`dir` fall back to the defaults.
 */
export const listContactsQuery = z.object({
  limit: z
    .string()
    .regex(/^-?\d+$/, 'limit must be an integer')
    .optional(),
  cursor: z.string().max(2000).optional(),
  search: z.string().max(320).optional(),
  subscribed: z.enum(['true', 'false']).optional(),
  sort: z.string().optional(),
  dir: z.string().optional(),
});

/** `GET /contacts/export` query: the filters of `GET /contacts` (the file is ordered by email). */
export const exportContactsQuery = listContactsQuery.pick({ search: true, subscribed: true });

/** `GET /contacts/export`: the CSV text (streamed). */
/** What `GET /contacts/export` answers: RFC 4180 CSV with a header row. */
export const contactsCsvDescription = 'RFC 4180 CSV: email, subscribed, createdAt, then the data keys';

/**
 * `POST /contacts/import` optional multipart field `mapping` (before the file): JSON
 * `{"<CSV column>": "email" | "subscribed" | "data:<key>" | "topics" | "topic:<topicId>" | "skip"}`.
 * Columns it does not name keep the automatic rule (an `email`-like header is the email, `subscribed`
 * the subscription, others data). `topics`: cells hold JSON `{"<topic id or name>": true|false}`;
 * `topic:<topicId>`: cells yes/no join/leave that topic (contacts/import-mapping.ts).
 */
export const importMapping = z.record(
  z.string().max(200),
  z
    .string()
    .regex(
      /^(email|subscribed|skip|topics|data:.{1,200}|topic:[0-9a-fA-F-]{36})$/,
      'a target is email, subscribed, skip, topics, data:<key> or topic:<topicId>',
    ),
);
export type ImportMapping = z.infer<typeof importMapping>;

/** `POST /contacts/lookup` `{emails}`: at most 500 emails. */
export const lookupBody = z.object({
  emails: z.array(z.string().trim().min(1).max(320)).min(1).max(500),
});

/** Bulk endpoints `{contactIds}`: at most 1,000 ids. */
export const bulkBody = z.object({
  contactIds: z
    .array(z.uuid({ message: 'Invalid contact id' }))
    .min(1)
    .max(1000),
});

export const idParams = z.object({ id: z.string() });
export const jobParams = z.object({ jobId: z.string() });
export const fieldParams = z.object({ field: z.string().min(1).max(200) });

export type ListContactsQuery = z.infer<typeof listContactsQuery>;

// Responses.

/** A contact as every endpoint answers it. */
export const contactOutSchema = z
  .object({
    id: uuidOut,
    email: z.string(),
    subscribed: z.boolean(),
    snoozedUntil: isoDateTime.nullable(),
    data: jsonObject,
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'Contact' });

/** `GET /contacts/:id`: the contact with its address's suppression (`{reason, createdAt}` or null). */
export const contactDetailOut = contactOutSchema.extend({
  suppression: contactSuppressionOut,
  /** Every topic of the project, with whether the contact is in it (the `subscribed` master switch aside). */
  topics: z.array(contactTopicOut),
});

/** `POST /contacts`: the contact with `_meta` (201 created, 200 updated). */
export const createdContactOut = contactOutSchema.extend({
  _meta: z.object({ isNew: z.boolean(), isUpdate: z.boolean() }),
});

export const contactListOut = cursorPage(contactOutSchema);

export const lookupOut = z.array(z.object({ email: z.string(), exists: z.boolean(), id: uuidOut.nullable() }));

export const fieldsOut = z.array(
  z.object({
    field: z.string(),
    type: z.enum(['string', 'number', 'boolean', 'date', 'object']),
    coverage: z.number().meta({ description: "Percent of the project's contacts that have the field, two decimals" }),
    standard: z.boolean(),
  }),
);

export const fieldValuesOut = z.object({
  field: z.string(),
  values: z.array(z.object({ value: z.unknown(), count: z.number().int() })),
});

const ref = z.object({ id: uuidOut, name: z.string() });
export const fieldUsageOut = z.object({
  field: z.string(),
  segments: z.array(ref),
  campaigns: z.array(ref),
  templates: z.array(ref),
  workflows: z.array(ref),
});

/** Import and bulk job status; `result` may carry more counters (e.g. `deleted`). */
export const jobStatusOut = z.object({
  id: uuidOut,
  state: z.enum(['waiting', 'active', 'completed', 'failed']),
  progress: z.number().int().min(0).max(100),
  result: z
    .looseObject({
      processed: z.number().int(),
      created: z.number().int(),
      updated: z.number().int(),
      skipped: z.number().int(),
      failed: z.number().int(),
      errors: z.array(z.object({ row: z.number().int().optional(), id: z.string().optional(), message: z.string() })),
    })
    .nullable(),
  failedReason: z.string().nullable(),
});
