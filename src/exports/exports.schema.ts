import { z } from 'zod';
import { isoDateTime, uuidOut } from '../http/responses.js';
import { SUPPRESSION_REASONS } from '../suppressions/reasons.js';
import { EMAIL_STATUSES } from '../emails/api/emails.log.schema.js';

/** What can be exported. */
export const EXPORT_KINDS = ['contacts', 'events', 'emails', 'suppressions', 'consent'] as const;
/** The file formats: RFC 4180 CSV (CRLF lines, header row) or JSON Lines (one object per line). */
export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
/** The states an export is seen in; `expired`: done, and its file deleted since. */
export const EXPORT_STATES = ['queued', 'running', 'done', 'failed', 'expired'] as const;

/**
 * The filter of an export; each kind reads the fields that apply to it (exports/kinds.ts) and ignores
 * the rest: contacts `search`, `subscribed`; events `name`; emails `status`; suppressions `reason`,
 * `search`; every kind `from` (inclusive) and `to` (exclusive) on its creation time.
 */
export const exportFilter = z
  .strictObject({
    search: z.string().trim().min(1).max(320).optional(),
    subscribed: z.boolean().optional(),
    name: z.string().min(1).max(200).optional(),
    status: z.enum(EMAIL_STATUSES).optional(),
    reason: z.enum(SUPPRESSION_REASONS).optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
  })
  .refine((f) => !f.from || !f.to || Date.parse(f.from) < Date.parse(f.to), {
    message: '`from` must be before `to`',
    path: ['to'],
  });
export type ExportFilter = z.infer<typeof exportFilter>;

/** `POST /exports` body. */
export const createExportBody = z.strictObject({
  kind: z.enum(EXPORT_KINDS),
  format: z.enum(EXPORT_FORMATS).default('csv'),
  filter: exportFilter.optional(),
});

/** One export as the API shows it. `url` (signed, valid 24 hours) only while its file is there. */
export const exportOut = z.object({
  id: uuidOut,
  kind: z.enum(EXPORT_KINDS),
  format: z.enum(EXPORT_FORMATS),
  filter: z.record(z.string(), z.unknown()).nullable(),
  state: z.enum(EXPORT_STATES),
  rowsDone: z.number().int(),
  rowsTotal: z.number().int().nullable().describe('Counted when the export starts; null while queued'),
  bytes: z.number().int().nullable(),
  error: z.string().nullable().describe('Why it failed, a sentence'),
  createdAt: isoDateTime,
  startedAt: isoDateTime.nullable(),
  finishedAt: isoDateTime.nullable(),
  expiresAt: isoDateTime.nullable().describe('When the file is deleted'),
  url: z.string().nullable().describe('The download link (signed, valid 24 hours) once done, until expiresAt'),
});
export type ExportOut = z.infer<typeof exportOut>;

/** `GET /exports`: the project's latest 50 exports, newest first. */
export const exportListOut = z.object({ data: z.array(exportOut) });

export const exportParams = z.object({ id: z.string().max(100) });
export const downloadQuery = z.object({ token: z.string().max(200).optional() });
