import { z } from 'zod';
import { rangeQuery } from '../analytics/range.js';
import { limitParam } from '../events/events.schema.js';

/**
 * Item types of the activity feed (api.md §6: sends, opens, clicks, bounces, complaints and inbound
 * items). `email.*` items come from the status timestamps of outgoing emails, `email.received` from
 * inbound events, `event` from every other recorded event (tracked, contact.*, segment.*).
 */
export const ACTIVITY_TYPES = [
  'email.sent', 'email.delivered', 'email.opened', 'email.clicked', 'email.bounced', 'email.complained',
  'email.received', 'event',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** `type=a,b` or repeated `type` parameters; every value must be a known type. */
const typeFilter = z.union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.enum(ACTIVITY_TYPES, { message: `Unknown type; one of ${ACTIVITY_TYPES.join(', ')}` })));

export const activityQuery = z.object({
  limit: limitParam,
  cursor: z.string().max(500).optional(),
  type: typeFilter.optional(),
});
export type ActivityQuery = z.output<typeof activityQuery>;

export const statsQuery = z.object(rangeQuery);

export const recentCountQuery = z.object({
  minutes: z.coerce.number({ message: 'minutes must be an integer' }).int().min(1).max(7 * 24 * 60).default(60),
});

export const upcomingQuery = z.object({ limit: limitParam });
