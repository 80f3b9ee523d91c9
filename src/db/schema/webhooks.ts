import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, smallint, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { projects, ts } from './accounts.js';

/**
 * Outbound event webhook endpoints (src/webhook-endpoints). `secret` is the Standard Webhooks signing
 * secret `whsec_<base64>`, kept as is (it signs every delivery, so it cannot be a hash); the API shows
 * it only on create and rotate. `events`: webhook types, `family.*` wildcards or `*`.
 * `failingSince`: the first failed attempt since the last success (5 days of it disable the endpoint).
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description'),
    events: text('events').array().notNull(),
    secret: text('secret').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason'),
    failingSince: ts('failing_since'),
    /** Deliveries in flight at once, at most (1-64; 1 orders every delivery of the endpoint). */
    concurrency: smallint('concurrency').notNull().default(8),
    /** The worker dispatcher (webhook-endpoints/dispatch) that delivers for this endpoint until `leaseUntil`. */
    leaseOwner: text('lease_owner'),
    leaseUntil: ts('lease_until'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    // The look-up every event write makes ("does this project have enabled endpoints?").
    index('webhook_endpoints_project_enabled_idx')
      .on(t.projectId)
      .where(sql`${t.enabled}`),
    index('webhook_endpoints_project_created_idx').on(t.projectId, t.createdAt),
    check('webhook_endpoints_concurrency_range', sql`${t.concurrency} between 1 and 64`),
  ],
);

export type WebhookDeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/**
 * One event offered to one endpoint: the payload `{type, timestamp, data}` as signed and sent, the
 * state of its attempts (`attempts`, `nextAttemptAt` by the service's own backoff schedule) and the
 * last answer (status code, body cut to 2 KiB, latency in ms, or the network error).
 * `eventId` is unique per endpoint, so one event is never queued twice for one endpoint.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: uuid('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** What first attempts are ordered by: the email, else the contact, else the campaign (null: none). */
    subject: text('subject'),
    payload: jsonb('payload').$type<{ type: string; timestamp: string; data: Record<string, unknown> }>().notNull(),
    status: text('status').$type<WebhookDeliveryStatus>().notNull().default('PENDING'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at'),
    lastAttemptAt: ts('last_attempt_at'),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    latencyMs: integer('latency_ms'),
    error: text('error'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_endpoint_event_uq').on(t.endpointId, t.eventId),
    index('webhook_deliveries_endpoint_id_idx').on(t.endpointId, t.id),
    index('webhook_deliveries_pending_idx')
      .on(t.endpointId, t.id)
      .where(sql`${t.status} = 'PENDING'`),
    index('webhook_deliveries_due_idx')
      .on(t.endpointId, t.nextAttemptAt)
      .where(sql`${t.status} = 'PENDING'`),
  ],
);
