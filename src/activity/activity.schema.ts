import { z } from 'zod';
import { rangeQuery } from '../analytics/range.js';
import { cursorPage, isoDateTime, uuidOut } from '../http/responses.js';
import { limitParam } from '../events/events.schema.js';

/**
 * Item types of the activity feed (sends, opens, clicks, bounces, complaints and inbound
 * items). `email.*` items come from the status timestamps of outgoing emails, `email.received` from
 * inbound events, `event` from every other recorded event (tracked, contact.*, segment.*).
 */
export const ACTIVITY_TYPES = [
  'email.sent',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'email.received',
  'event',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** `type=a,b` or repeated `type` parameters; every value must be a known type. */
const typeFilter = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(ACTIVITY_TYPES, { message: `Unknown type; one of ${ACTIVITY_TYPES.join(', ')}` })));

export const activityQuery = z.object({
  limit: limitParam,
  cursor: z.string().max(500).optional(),
  type: typeFilter.optional(),
});
export type ActivityQuery = z.output<typeof activityQuery>;

export const statsQuery = z.object(rangeQuery);

export const recentCountQuery = z.object({
  minutes: z.coerce
    .number({ message: 'minutes must be an integer' })
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(60),
});

export const upcomingQuery = z.object({ limit: limitParam });

// Responses.

const activityItem = z.object({
  id: z.string().meta({ description: 'Opaque key of the item (`<record id>:<type>`)' }),
  type: z.enum(ACTIVITY_TYPES),
  occurredAt: isoDateTime,
  contact: z.object({ id: uuidOut.nullable(), email: z.string() }).nullable(),
  email: z
    .object({
      id: uuidOut,
      subject: z.string().nullable(),
      campaignId: uuidOut.nullable(),
      templateId: uuidOut.nullable(),
    })
    .nullable(),
  event: z.object({ id: uuidOut, name: z.string().nullable(), data: z.unknown() }).nullable(),
});
export const activityFeedOut = cursorPage(activityItem);

const rateOf = z.number().meta({ description: 'Percent of sent, two decimals' });
export const activityStatsOut = z.object({
  from: isoDateTime,
  to: isoDateTime,
  sent: z.number().int(),
  delivered: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  bounced: z.number().int(),
  complained: z.number().int(),
  received: z.number().int(),
  events: z.number().int(),
  deliveryRate: rateOf,
  openRate: rateOf,
  clickRate: rateOf,
  bounceRate: rateOf,
  complaintRate: rateOf,
});

export const recentCountOut = z.object({ count: z.number().int(), minutes: z.number().int(), since: isoDateTime });

export const activityTypesOut = z.array(z.enum(ACTIVITY_TYPES));

export const upcomingOut = z.object({
  campaigns: z.array(
    z.object({
      id: uuidOut,
      name: z.string(),
      subject: z.string(),
      audienceType: z.string(),
      scheduledFor: isoDateTime,
    }),
  ),
  workflows: z.array(
    z.object({
      executionId: uuidOut,
      workflowId: uuidOut,
      workflowName: z.string(),
      contactId: uuidOut,
      contactEmail: z.string(),
      stepId: uuidOut.nullable(),
      stepName: z.string().nullable(),
      stepType: z.string().nullable(),
      waitingSince: isoDateTime,
    }),
  ),
});
