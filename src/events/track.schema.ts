import { z } from 'zod';
import { topicChoices } from '../topics/topics.schema.js';

/** Body of `POST /v1/track` and `POST /events/track`. */
export const trackBody = z.object({
  email: z.email({ message: 'Invalid email address' }),
  event: z.string().trim().min(1, 'The event name must not be empty').max(255),
  subscribed: z.boolean().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  /** Topics to join (true) or leave (false), by id or name (topics/topics.schema.ts). */
  topics: topicChoices.optional(),
});

export type TrackBody = z.infer<typeof trackBody>;

/** Track result `{contact, event, timestamp}` in the public envelope. */
export const trackResult = z.object({
  success: z.literal(true),
  data: z.object({ contact: z.string(), event: z.string(), timestamp: z.string() }),
});
