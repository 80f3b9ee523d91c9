import { z } from 'zod';

/** Request schemas of the segment endpoints (api.md §2.4, §4.2, §4.3, §8). */

export const segmentType = z.enum(['DYNAMIC', 'STATIC']);

/**
 * `POST /segments`. `condition` is checked by the service, not here: DYNAMIC without a condition
 * object is a 400 with the simple body (api.md §7.2), a malformed one a 422 from the compiler, and
 * STATIC ignores it (api.md §4.2).
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

/** Path ids are plain strings: a non-uuid is a 404 like an unknown id. */
export const segmentParams = z.object({ id: z.string() });

/** `GET /segments/:id/contacts`: page-based (api.md §2.10); `pageSize` is clamped to 100 (§8). */
export const segmentContactsQuery = z.object({
  page: z.coerce.number().int().min(1).max(10_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).default(20).transform((n) => Math.min(n, 100)),
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
