/**
 * What a scoped API key (issue 39, `api_keys`) may do: the scopes, and the one table that maps every
 * route a key may call to the scope it needs. The auth hook (http/auth.ts) looks the route up here
 * before the body is read; a route that is not in the table is refused to scoped keys (`member`
 * routes, which manage the project, its members and keys, never appear). Scopes are independent: a
 * `:write` scope does not imply its `:read`, and none implies another.
 */

/** Every scope a key can hold, grouped by area for the dashboard (read before write). */
export const SCOPES = [
  'send',
  'track',
  'contacts:read',
  'contacts:write',
  'campaigns:read',
  'campaigns:write',
  'templates:read',
  'templates:write',
  'segments:read',
  'segments:write',
  'workflows:read',
  'workflows:write',
  'analytics:read',
  'webhooks:read',
  'webhooks:write',
  'domains:read',
  'domains:write',
] as const;

export type Scope = (typeof SCOPES)[number];

/** The areas of the path prefixes below, each with its read and write scope. */
type Area = 'contacts' | 'campaigns' | 'templates' | 'segments' | 'workflows' | 'webhooks' | 'domains';

const r = (a: Area): Scope => `${a}:read`;
const w = (a: Area): Scope => `${a}:write`;

/**
 * `METHOD /path` as Fastify registers it (`routeOptions.method` + `routeOptions.url`) → the scope a key
 * needs. Reads are GETs and the POSTs that only compute an answer (previews, counts, look-ups); a POST
 * that sends a test mail or starts work counts as a write of its area. Decisions beyond the obvious
 * (docs/security.md "API keys and scopes"): topics, suppressions, forms, fields, consent, exports and
 * erasure are contact data (`contacts:*`); events, activity, analytics, sent mails and link and
 * campaign reports are `analytics:read`, and deleting an event name is `contacts:write` (it deletes
 * contacts' events); uploads, the email style and the template gallery belong to `templates:*`;
 * transports and their routing rules to `domains:*` (both decide how mail leaves); `/v1/verify`
 * (is this address deliverable?) to `send`.
 */
export const ROUTE_SCOPES: Readonly<Record<string, Scope>> = {
  // The sending API.
  'POST /v1/send': 'send',
  'POST /v1/verify': 'send',
  'POST /v1/track': 'track',
  'POST /events/track': 'track',

  // Contacts and what hangs on them.
  'GET /contacts': r('contacts'),
  'POST /contacts': w('contacts'),
  'GET /contacts/:id': r('contacts'),
  'PATCH /contacts/:id': w('contacts'),
  'DELETE /contacts/:id': w('contacts'),
  'GET /contacts/:id/consent': r('contacts'),
  'PUT /contacts/:id/topics': w('contacts'),
  'GET /contacts/export': r('contacts'),
  'POST /contacts/lookup': r('contacts'),
  'POST /contacts/import': w('contacts'),
  'GET /contacts/import/:jobId': r('contacts'),
  'POST /contacts/bulk-delete': w('contacts'),
  'POST /contacts/bulk-subscribe': w('contacts'),
  'POST /contacts/bulk-unsubscribe': w('contacts'),
  'GET /contacts/bulk/:jobId': r('contacts'),
  'GET /contacts/fields': r('contacts'),
  'GET /contacts/fields/:field/usage': r('contacts'),
  'GET /contacts/fields/:field/values': r('contacts'),
  'DELETE /contacts/fields/:field': w('contacts'),
  'GET /topics': r('contacts'),
  'POST /topics': w('contacts'),
  'GET /topics/:id': r('contacts'),
  'PATCH /topics/:id': w('contacts'),
  'DELETE /topics/:id': w('contacts'),
  'GET /forms': r('contacts'),
  'POST /forms': w('contacts'),
  'GET /forms/:id': r('contacts'),
  'PATCH /forms/:id': w('contacts'),
  'DELETE /forms/:id': w('contacts'),
  'GET /suppressions': r('contacts'),
  'POST /suppressions': w('contacts'),
  'DELETE /suppressions/:email': w('contacts'),
  'GET /suppressions/export': r('contacts'),
  'POST /suppressions/import': w('contacts'),
  // Data exports, subject access and erasure (issue 39, the "data" part).
  'POST /exports': r('contacts'),
  'GET /exports': r('contacts'),
  'GET /exports/:id': r('contacts'),
  'GET /contacts/:id/export': r('contacts'),
  'POST /contacts/:id/erase': w('contacts'),
  'DELETE /events/:eventName': w('contacts'),

  // Campaigns.
  'GET /campaigns': r('campaigns'),
  'POST /campaigns': w('campaigns'),
  'GET /campaigns/:id': r('campaigns'),
  'PUT /campaigns/:id': w('campaigns'),
  'DELETE /campaigns/:id': w('campaigns'),
  'POST /campaigns/:id/duplicate': w('campaigns'),
  'POST /campaigns/:id/send': w('campaigns'),
  'POST /campaigns/:id/cancel': w('campaigns'),
  'POST /campaigns/:id/test': w('campaigns'),
  'POST /campaigns/:id/winner': w('campaigns'),
  'GET /campaigns/:id/delivery-preview': r('campaigns'),
  'POST /campaigns/audience-count': r('campaigns'),

  // Templates, and the content they are made of.
  'GET /templates': r('templates'),
  'POST /templates': w('templates'),
  'GET /templates/:id': r('templates'),
  'PATCH /templates/:id': w('templates'),
  'DELETE /templates/:id': w('templates'),
  'GET /templates/:id/usage': r('templates'),
  'POST /templates/:id/duplicate': w('templates'),
  'POST /templates/:id/test': w('templates'),
  'POST /templates/preview': r('templates'),
  'GET /templates/gallery': r('templates'),
  'GET /templates/gallery/:key': r('templates'),
  'GET /email-style': r('templates'),
  'PUT /email-style': w('templates'),
  'POST /uploads/image': w('templates'),

  // Segments.
  'GET /segments': r('segments'),
  'POST /segments': w('segments'),
  'GET /segments/:id': r('segments'),
  'PATCH /segments/:id': w('segments'),
  'DELETE /segments/:id': w('segments'),
  'GET /segments/:id/contacts': r('segments'),
  'POST /segments/:id/members': w('segments'),
  'DELETE /segments/:id/members': w('segments'),
  'POST /segments/:id/compute': w('segments'),
  'POST /segments/:id/refresh': w('segments'),
  'POST /segments/count': r('segments'),

  // Workflows.
  'GET /workflows': r('workflows'),
  'POST /workflows': w('workflows'),
  'GET /workflows/fields': r('workflows'),
  'GET /workflows/schedule-preview': r('workflows'),
  'GET /workflows/:id': r('workflows'),
  'PATCH /workflows/:id': w('workflows'),
  'DELETE /workflows/:id': w('workflows'),
  'POST /workflows/:id/steps': w('workflows'),
  'PATCH /workflows/:id/steps/:stepId': w('workflows'),
  'DELETE /workflows/:id/steps/:stepId': w('workflows'),
  'POST /workflows/:id/transitions': w('workflows'),
  'DELETE /workflows/:id/transitions/:transitionId': w('workflows'),
  'GET /workflows/:id/executions': r('workflows'),
  'POST /workflows/:id/executions': w('workflows'),
  'POST /workflows/:id/executions/cancel-all': w('workflows'),
  'GET /workflows/:id/executions/:executionId': r('workflows'),
  'DELETE /workflows/:id/executions/:executionId': w('workflows'),

  // Reports: events, activity, analytics, sent mails, links.
  'GET /events': 'analytics:read',
  'GET /events/names': 'analytics:read',
  'GET /events/stats': 'analytics:read',
  'GET /events/:eventName/usage': 'analytics:read',
  'GET /events/contact/:contactId': 'analytics:read',
  'GET /activity': 'analytics:read',
  'GET /activity/recent-count': 'analytics:read',
  'GET /activity/stats': 'analytics:read',
  'GET /activity/types': 'analytics:read',
  'GET /activity/upcoming': 'analytics:read',
  'GET /analytics/campaign-stats': 'analytics:read',
  'GET /analytics/timeseries': 'analytics:read',
  'GET /analytics/top-campaigns': 'analytics:read',
  'GET /analytics/top-events': 'analytics:read',
  'GET /emails': 'analytics:read',
  'GET /emails/:id': 'analytics:read',
  'GET /campaigns/:id/emails': 'analytics:read',
  'GET /campaigns/:id/links': 'analytics:read',
  'GET /campaigns/:id/stats': 'analytics:read',
  'GET /campaigns/:id/timeline': 'analytics:read',
  'GET /workflows/:id/stats': 'analytics:read',
  'GET /workflows/:id/steps/:stepId/links': 'analytics:read',

  // Webhook endpoints.
  'GET /webhook-endpoints': r('webhooks'),
  'POST /webhook-endpoints': w('webhooks'),
  'GET /webhook-endpoints/:id': r('webhooks'),
  'PATCH /webhook-endpoints/:id': w('webhooks'),
  'DELETE /webhook-endpoints/:id': w('webhooks'),
  'GET /webhook-endpoints/:id/deliveries': r('webhooks'),
  'POST /webhook-endpoints/:id/deliveries/:deliveryId/retry': w('webhooks'),
  'POST /webhook-endpoints/:id/rotate-secret': w('webhooks'),
  'POST /webhook-endpoints/:id/test': w('webhooks'),

  // Sending domains, transports and their routing rules.
  'POST /domains': w('domains'),
  'GET /domains/project/:projectId': r('domains'),
  'GET /domains/:id/verify': r('domains'),
  'DELETE /domains/:id': w('domains'),
  'GET /transports': r('domains'),
  'POST /transports': w('domains'),
  'GET /transports/:id': r('domains'),
  'PATCH /transports/:id': w('domains'),
  'DELETE /transports/:id': w('domains'),
  'POST /transports/:id/test': w('domains'),
  'GET /transports/rules': r('domains'),
  'PUT /transports/rules': w('domains'),
};

/** Is `value` one of {@link SCOPES}? */
export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** The scope `METHOD url` needs (url as Fastify registered it), or null: scoped keys may not call it. */
export function scopeOfRoute(method: string, url: string): Scope | null {
  return ROUTE_SCOPES[`${method} ${url}`] ?? null;
}
