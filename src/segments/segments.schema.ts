import { z } from 'zod';
import { contactOutSchema } from '../contacts/contacts.schema.js';
import { isoDateTime, uuidOut } from '../http/responses.js';
import { conditionTreeOut } from './condition.schema.js';

/** Request schemas of the segment endpoints. */

export const segmentType = z.enum(['DYNAMIC', 'STATIC']);

/**
 * `POST /segments`. `condition` is checked by the service, not here: DYNAMIC without a condition
 * object is a 400 with the simple `{error}` body, a malformed one a 422 from the compiler, and
 * STATIC ignores it.
 */
export const createSegmentBody = z.object({
  name: z.string().trim().min(1).max(100),
  description: z.string().max(500).nullish(),
  type: segmentType.default('DYNAMIC'),
  condition: z.unknown().optional(),
  trackMembership: z.boolean().default(false),
});

/** `PATCH /segments/:id`: `condition` applies to DYNAMIC segments only (ignored for STATIC). */
export const updateSegmentBody = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  description: z.string().max(500).nullish(),
  condition: z.unknown().optional(),
  trackMembership: z.boolean().optional(),
});

/** `POST /segments/count`: the condition is checked by the compiler (422 with `condition.…` paths). */
export const countConditionBody = z.object({ condition: z.unknown() });

/** Path ids are plain strings: a non-uuid is a 404 like an unknown id. */
export const segmentParams = z.object({ id: z.string() });

/** `GET /segments/:id/contacts`: page-based; `pageSize` is clamped to 100. */
export const segmentContactsQuery = z.object({
  page: z.coerce.number().int().min(1).max(10_000_000).default(1),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .transform((n) => Math.min(n, 100)),
});

/** `POST /segments/:id/members` (static segments). */
export const addMembersBody = z.object({
  emails: z.array(z.email()).min(1).max(1000),
  createMissing: z.boolean().default(false),
  /** State of contacts created by `createMissing` (default true, like `POST /contacts`). */
  subscribed: z.boolean().default(true),
});

/** `DELETE /segments/:id/members` (static segments). */
export const removeMembersBody = z.object({
  emails: z.array(z.string().min(1).max(320)).min(1).max(1000),
});

export type CreateSegmentInput = z.infer<typeof createSegmentBody>;
export type UpdateSegmentInput = z.infer<typeof updateSegmentBody>;
export type AddMembersInput = z.infer<typeof addMembersBody>;

// Responses.

const count = z.number().int();

/** A segment as every endpoint answers it; `condition` is null for STATIC segments. */
export const segmentOutSchema = z
  .object({
    id: uuidOut,
    name: z.string(),
    description: z.string().nullable(),
    type: segmentType,
    condition: conditionTreeOut.nullable(),
    trackMembership: z.boolean(),
    memberCount: count,
    /** Why the last scheduled recompute skipped this segment (e.g. over the reference budget); null when it ran. */
    computeError: z.string().nullable(),
    projectId: uuidOut,
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'Segment' });

/** `GET /segments`: a bare array, newest first. */
export const segmentListOut = z.array(segmentOutSchema);

/** `GET /segments/:id/contacts`: page-based `{data, total, page, pageSize}`. */
export const segmentContactsOut = z.object({
  data: z.array(contactOutSchema),
  total: count,
  page: count,
  pageSize: count,
  totalPages: count,
});

/** `POST /segments/:id/compute`: `added`/`removed`/`total` repeat `entered`/`exited`/`memberCount` for Plunk's clients. */
export const computeOut = z.object({
  entered: count,
  exited: count,
  memberCount: count,
  added: count,
  removed: count,
  total: count,
});

export const addMembersOut = z.object({
  added: count,
  created: count,
  notFound: z.array(z.string()).meta({ description: 'Emails without a contact (when createMissing is false)' }),
});

export const removeMembersOut = z.object({ removed: count });

/** `POST /segments/count`. */
export const countConditionOut = z.object({ count: z.number().int() });
