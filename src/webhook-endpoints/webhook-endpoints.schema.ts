import { z } from 'zod';
import { cursorPage, isoDateTime, jsonObject, uuidOut } from '../http/responses.js';
import { refusedPattern } from './event-types.js';

/** An http(s) URL of at most 2,000 characters (where it may point is checked when it is called: lib/safe-http.ts). */
const endpointUrl = z
  .string()
  .trim()
  .max(2000)
  .refine(
    (v) => {
      try {
        const u = new URL(v);
        return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
      } catch {
        return false;
      }
    },
    { message: 'Expected an http or https URL' },
  );

/** Subscribed types: 1-100 patterns (event-types.ts `refusedPattern`), duplicates dropped. */
const eventPatterns = z
  .array(z.string().trim().min(1).max(200))
  .min(1)
  .max(100)
  .superRefine((list, ctx) =>
    list.forEach((p, i) => {
      const why = refusedPattern(p);
      if (why) ctx.addIssue({ code: 'custom', message: why, path: [i] });
    }),
  )
  .transform((list) => [...new Set(list)]);

/**
 * Deliveries in flight at once to the endpoint, at most: 1-64, default 8. Deliveries about one
 * subject (an email, a contact, a campaign) always go one at a time, in order; 1 orders them all.
 */
const concurrency = z.number().int().min(1).max(64);

/** Body of `POST /webhook-endpoints`. */
export const createEndpointBody = z.strictObject({
  url: endpointUrl,
  events: eventPatterns,
  description: z.string().trim().max(500).nullish(),
  concurrency: concurrency.optional(),
});

/** Body of `PATCH /webhook-endpoints/:id`: any of url, events, description, enabled. */
export const updateEndpointBody = z.strictObject({
  url: endpointUrl.optional(),
  events: eventPatterns.optional(),
  description: z.string().trim().max(500).nullable().optional(),
  enabled: z.boolean().optional(),
  concurrency: concurrency.optional(),
});

/** An endpoint as listed (never its secret). `failingSince`: first failed attempt since the last success. */
export const endpointOut = z.object({
  id: uuidOut,
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  failingSince: isoDateTime.nullable(),
  concurrency: z.number().int(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

/** An endpoint with its signing secret `whsec_…` (create and rotate-secret only). */
export const endpointWithSecretOut = endpointOut.extend({ secret: z.string() });

/** One delivery in the log: state of its attempts, the last answer (body cut to 2 KiB) and the payload sent. */
export const deliveryOut = z.object({
  id: uuidOut,
  endpointId: uuidOut,
  eventId: uuidOut,
  type: z.string(),
  status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']),
  attempts: z.number().int(),
  nextAttemptAt: isoDateTime.nullable(),
  lastAttemptAt: isoDateTime.nullable(),
  responseStatus: z.number().int().nullable(),
  responseBody: z.string().nullable(),
  latencyMs: z.number().int().nullable(),
  error: z.string().nullable(),
  payload: z.object({ type: z.string(), timestamp: z.string(), data: jsonObject }),
  createdAt: isoDateTime,
});

export const deliveryPageOut = cursorPage(deliveryOut);

/** Query of `GET /webhook-endpoints/:id/deliveries`: newest first. */
export const deliveryListQuery = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']).optional(),
});

/** Answer of `POST /webhook-endpoints/:id/test`: the test delivery as logged after its one attempt. */
export const testOut = deliveryOut;

export type CreateEndpointBody = z.infer<typeof createEndpointBody>;
export type UpdateEndpointBody = z.infer<typeof updateEndpointBody>;
export type DeliveryListQuery = z.infer<typeof deliveryListQuery>;
