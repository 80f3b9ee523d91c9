import { z } from 'zod';
import { isoDateTime, uuidOut } from '../http/responses.js';

/** `opt-out`: every subscribed contact is in the topic unless they left it; `opt-in`: only those who joined. */
export const topicDefault = z.enum(['opt-in', 'opt-out']);

const name = z.string().trim().min(1, 'A topic needs a name').max(100);
const description = z.string().trim().max(500);

/** Body of `POST /topics`. */
export const createTopicBody = z.strictObject({
  name,
  description: description.nullish(),
  default: topicDefault,
  /** Shown on the preference centre (default true). */
  public: z.boolean().optional(),
});

/** Body of `PATCH /topics/:id`: any of the fields of a topic. */
export const updateTopicBody = z.strictObject({
  name: name.optional(),
  description: description.nullable().optional(),
  default: topicDefault.optional(),
  public: z.boolean().optional(),
});

/** A topic; `members`: subscribed contacts in it now (topics/membership.ts). */
export const topicOut = z.object({
  id: uuidOut,
  name: z.string(),
  description: z.string().nullable(),
  default: topicDefault,
  public: z.boolean(),
  members: z.number().int(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type TopicOut = z.infer<typeof topicOut>;

/**
 * A contact's choices by topic id or name (case-insensitive): `true` joins, `false` leaves. At most
 * 100 entries; an unknown topic is refused (422), nothing changed.
 */
export const topicChoices = z
  .record(z.string().trim().min(1).max(100), z.boolean())
  .refine((o) => Object.keys(o).length <= 100, { message: 'At most 100 topics at once' });

/** Body of `PUT /contacts/:id/topics`. */
export const putContactTopicsBody = z.strictObject({ topics: topicChoices });

/** One topic of a contact: `subscribed` is whether the contact is in it now. */
export const contactTopicOut = z.object({ id: uuidOut, name: z.string(), subscribed: z.boolean() });
export type ContactTopicOut = z.infer<typeof contactTopicOut>;

/** `PUT /contacts/:id/topics`: every topic of the project with the contact's membership after the change. */
export const contactTopicsOut = z.object({ topics: z.array(contactTopicOut) });
