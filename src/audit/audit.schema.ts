import { z } from 'zod';
import { isoDateTime } from '../http/responses.js';

/** `GET /projects/:id/audit-log` path. */
export const auditLogParams = z.object({ id: z.uuid({ message: 'Invalid project id' }) });

/**
 * Filters of `GET /projects/:id/audit-log`: `actor` a user or key id, or `type:user` / `type:key`;
 * `action` exact (`template.update`) or a prefix ending in a dot (`campaign.`); `from`/`to` ISO times
 * (from inclusive, to exclusive); `limit` 1-100 (50); `cursor` of the previous page.
 */
export const auditLogQuery = z.object({
  actor: z
    .union([z.enum(['type:user', 'type:key', 'type:system']), z.uuid()])
    .optional()
    .meta({ description: 'A user id, a scoped key id, or type:user | type:key | type:system' }),
  action: z
    .string()
    .regex(/^[a-z_]+(\.([a-z_]+)?)?$/, 'An action such as template.update, or a prefix such as campaign.')
    .optional(),
  targetType: z
    .string()
    .regex(/^[a-z_]+$/)
    .optional(),
  targetId: z.string().min(1).max(200).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(200).optional(),
});
export type AuditLogQuery = z.infer<typeof auditLogQuery>;

/** One entry as the API shows it. `changes`: field → `[before, after]`, secrets as `"[secret]"`. */
export const auditEntryOut = z.object({
  id: z.string(),
  at: isoDateTime,
  actor: z.object({
    type: z.enum(['user', 'key', 'system']),
    id: z.string().nullable(),
    email: z.string().nullable().optional(),
    keyName: z.string().nullable().optional(),
  }),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable() }),
  changes: z.record(z.string(), z.tuple([z.unknown(), z.unknown()])).nullable(),
});
export type AuditEntryOut = z.infer<typeof auditEntryOut>;

/** A page of entries, newest first; `cursor` null on the last page. */
export const auditLogOut = z.object({ entries: z.array(auditEntryOut), cursor: z.string().nullable() });
