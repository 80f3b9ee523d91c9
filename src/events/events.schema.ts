import { z } from 'zod';
import { cursorPage, isoDateTime, jsonObject, uuidOut } from '../http/responses.js';

/** `limit` of cursor lists: default 20, max 100, larger values clamped. */
export const limitParam = z.coerce
  .number({ message: 'limit must be an integer >= 1' })
  .int()
  .min(1)
  .default(20)
  .transform((n) => Math.min(n, 100));

/** Query of `GET /events`. */
export const listEventsQuery = z.object({
  limit: limitParam,
  cursor: z.string().max(500).optional(),
  name: z.string().min(1).max(200).optional(),
  contactId: z.uuid({ message: 'contactId must be a uuid' }).optional(),
});
export type ListEventsQuery = z.output<typeof listEventsQuery>;

/** Query of `GET /events/contact/:contactId`. */
export const contactEventsQuery = listEventsQuery.omit({ contactId: true });

export const contactParams = z.object({ contactId: z.string() });
export const eventNameParams = z.object({ eventName: z.string().min(1).max(200) });

/** One event as the read endpoints return it. */
export interface EventOut {
  id: string;
  name: string;
  contactId: string | null;
  contact: { id: string; email: string } | null;
  data: Record<string, unknown>;
  emailId: string | null;
  campaignId: string | null;
  createdAt: string;
}

// Responses.

const count = z.number().int();

/** One event as the read endpoints answer it ({@link EventOut}). */
export const eventOutSchema = z
  .object({
    id: uuidOut,
    name: z.string(),
    contactId: uuidOut.nullable(),
    contact: z.object({ id: uuidOut, email: z.string() }).nullable(),
    data: jsonObject,
    emailId: uuidOut.nullable(),
    campaignId: uuidOut.nullable(),
    createdAt: isoDateTime,
  })
  .meta({ id: 'Event' });

export const eventListOut = cursorPage(eventOutSchema);

export const eventStatsOut = z.object({
  total: count,
  last30Days: count,
  uniqueNames: count,
  byName: z.array(z.object({ name: z.string(), count, last30Days: count })),
  daily: z.array(z.object({ date: z.string().meta({ format: 'date', description: 'UTC day, YYYY-MM-DD' }), count })),
});

export const eventNamesOut = z.array(
  z.object({
    name: z.string(),
    count,
    last30Days: count,
    contacts: count,
    lastSeen: isoDateTime,
    reserved: z.boolean().meta({
      description:
        'Emitted by the service itself (contact.subscribed, contact.unsubscribed, email.*, segment.<slug>.entry|exit); clients cannot track it',
    }),
  }),
);

export const eventUsageOut = z.object({
  eventName: z.string(),
  workflows: z.array(
    z.object({
      id: uuidOut,
      name: z.string(),
      enabled: z.boolean(),
      usedAs: z
        .string()
        .nullable()
        .meta({ description: '`trigger`, or the type of the step that waits for or tests the event' }),
      stepId: uuidOut.nullable(),
      stepName: z.string().nullable(),
    }),
  ),
  segments: z.array(z.object({ id: uuidOut, name: z.string(), type: z.string().nullable() })),
  campaigns: z.array(z.object({ id: uuidOut, name: z.string(), status: z.string().nullable() })),
});
