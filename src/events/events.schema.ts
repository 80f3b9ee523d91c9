import { z } from 'zod';

/** `limit` of cursor lists (api.md §8: default 20, max 100, larger values clamped). */
export const limitParam = z.coerce.number({ message: 'limit must be an integer >= 1' }).int().min(1).default(20)
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
