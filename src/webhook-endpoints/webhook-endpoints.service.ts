import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { AppError, invalid, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { keyring, resealColumn, secretPlaces, type ResealCount } from '../lib/secret-places.js';
import { sealSecret } from '../lib/secrets.js';
import { webhookEndpoints } from '../db/schema.js';
import { attempt, bodyOf } from './attempt.js';
import { queueRetry, recordTestAttempt } from './deliveries.state.js';
import * as repo from './webhook-endpoints.repo.js';
import type { CreateEndpointBody, DeliveryListQuery, UpdateEndpointBody } from './webhook-endpoints.schema.js';

/** The rules of event webhook endpoints: secrets, enable/disable, the delivery log, retry and test sends. */

/** Endpoints per project. */
export const MAX_ENDPOINTS = 20;

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** An endpoint as the API shows it, never with its secret. */
export function endpointView(e: repo.EndpointRow) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    failingSince: iso(e.failingSince),
    concurrency: e.concurrency,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

/** The answer of create and rotate-secret: the endpoint and its secret, in clear this once. */
const withSecret = (e: repo.EndpointRow, secret: string) => ({ ...endpointView(e), secret });
/** A new secret for endpoint `id`: in clear for the answer, sealed for the row (lib/secrets.ts). */
function freshSecret(deps: Deps, id: string): { clear: string; sealed: string } {
  const clear = newSecret();
  return { clear, sealed: sealSecret(keyring(deps), clear, secretPlaces.webhookSecret(id)) };
}

/** A delivery as the log shows it. */
export function deliveryView(d: repo.DeliveryRow) {
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventId: d.eventId,
    type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: iso(d.nextAttemptAt),
    lastAttemptAt: iso(d.lastAttemptAt),
    responseStatus: d.responseStatus,
    responseBody: d.responseBody,
    latencyMs: d.latencyMs,
    error: d.error,
    payload: d.payload,
    createdAt: d.createdAt.toISOString(),
  };
}

async function mustFind(deps: Deps, projectId: string, id: string) {
  const e = isUuid(id) ? await repo.findEndpoint(deps.db, projectId, id) : undefined;
  if (!e) throw notFound('Webhook endpoint');
  return e;
}

/**
 * Adds an endpoint (enabled) with a new secret, shown in this answer only.
 * @throws AppError 409 CONFLICT past {@link MAX_ENDPOINTS} endpoints.
 */
export async function createEndpoint(deps: Deps, projectId: string, body: CreateEndpointBody) {
  const now = deps.clock.now();
  const id = newId();
  const secret = freshSecret(deps, id);
  const e = await deps.db.transaction(async (tx) => {
    // Serializes creates of one project, so the limit holds under concurrency.
    await tx.execute(sql`select 1 from projects where id = ${projectId} for update`);
    const existing = await repo.listEndpoints(tx, projectId);
    if (existing.length >= MAX_ENDPOINTS)
      throw new AppError('CONFLICT', `A project has at most ${MAX_ENDPOINTS} webhook endpoints`);
    return repo.insertEndpoint(tx, {
      id,
      projectId,
      url: body.url,
      events: body.events,
      description: body.description ?? null,
      concurrency: body.concurrency ?? 8,
      secret: secret.sealed,
      createdAt: now,
      updatedAt: now,
    });
  });
  return withSecret(e, secret.clear);
}

export async function listEndpoints(deps: Deps, projectId: string) {
  return (await repo.listEndpoints(deps.db, projectId)).map((e) => endpointView(e));
}

export async function getEndpoint(deps: Deps, projectId: string, id: string) {
  return endpointView(await mustFind(deps, projectId, id));
}

/** Changes url, events, description, concurrency or enabled (a running dispatcher applies them within seconds). Enabling clears the failing streak and the disabled reason. */
export async function updateEndpoint(deps: Deps, projectId: string, id: string, body: UpdateEndpointBody) {
  await mustFind(deps, projectId, id);
  const set: Parameters<typeof repo.updateEndpoint>[3] = { updatedAt: deps.clock.now() };
  if (body.url !== undefined) set.url = body.url;
  if (body.events !== undefined) set.events = body.events;
  if (body.description !== undefined) set.description = body.description;
  if (body.concurrency !== undefined) set.concurrency = body.concurrency;
  if (body.enabled !== undefined) {
    set.enabled = body.enabled;
    set.disabledReason = body.enabled ? null : 'Disabled by a user';
    if (body.enabled) set.failingSince = null;
  }
  const e = await repo.updateEndpoint(deps.db, projectId, id, set);
  if (!e) throw notFound('Webhook endpoint');
  return endpointView(e);
}

/** Deletes the endpoint and its delivery log (pending attempts find no row and do nothing). */
export async function deleteEndpoint(deps: Deps, projectId: string, id: string): Promise<void> {
  if (!isUuid(id) || !(await repo.deleteEndpoint(deps.db, projectId, id))) throw notFound('Webhook endpoint');
}

/** Replaces the secret at once (attempts from now on are signed with the new one); answers it once. */
export async function rotateSecret(deps: Deps, projectId: string, id: string) {
  const found = await mustFind(deps, projectId, id);
  const secret = freshSecret(deps, found.id);
  const e = await repo.updateEndpoint(deps.db, projectId, id, { secret: secret.sealed, updatedAt: deps.clock.now() });
  return withSecret(e!, secret.clear);
}

/**
 * Sends a `webhook.test` event to the endpoint now (also when disabled), once, and answers the
 * logged delivery with the receiver's answer. Not retried.
 */
export async function testEndpoint(deps: Deps, projectId: string, id: string) {
  const e = await mustFind(deps, projectId, id);
  const now = deps.clock.now();
  const payload = { type: 'webhook.test', timestamp: now.toISOString(), data: { endpointId: e.id, projectId } };
  const d = await repo.insertDelivery(deps.db, {
    id: newId(),
    projectId,
    endpointId: e.id,
    eventId: newId(),
    eventType: payload.type,
    payload,
    createdAt: now,
  });
  const at = deps.clock.now();
  const res = await attempt(deps, e.url, e.id, e.secret, d.id, bodyOf(payload));
  await recordTestAttempt(deps.db, d.id, at, res);
  return deliveryView((await repo.findDelivery(deps.db, projectId, e.id, d.id))!);
}

/** A page of the endpoint's delivery log, newest first; `cursor` is the previous page's. */
export async function listDeliveries(deps: Deps, projectId: string, id: string, q: DeliveryListQuery) {
  await mustFind(deps, projectId, id);
  let beforeId: string | undefined;
  if (q.cursor) {
    beforeId = Buffer.from(q.cursor, 'base64url').toString();
    if (!isUuid(beforeId))
      throw invalid('cursor', 'Invalid cursor: pass the cursor of a previous page', 'invalid_string');
  }
  const rows = await repo.listDeliveries(deps.db, projectId, id, { beforeId, limit: q.limit + 1, status: q.status });
  const page = rows.slice(0, q.limit);
  const hasMore = rows.length > q.limit;
  return {
    data: page.map(deliveryView),
    cursor: hasMore ? Buffer.from(page[page.length - 1].id).toString('base64url') : null,
    hasMore,
    total: q.cursor ? 0 : await repo.countDeliveries(deps.db, projectId, id, q.status),
  };
}

/**
 * Attempts a delivery again now: a FAILED or SUCCEEDED one becomes PENDING with a fresh schedule
 * (attempts start over); a PENDING one has its scheduled attempt moved to now. The endpoint must be enabled.
 * @throws AppError 409 CONFLICT when the endpoint is disabled; 404 for an unknown delivery.
 */
export async function retryDelivery(deps: Deps, projectId: string, id: string, deliveryId: string) {
  const e = await mustFind(deps, projectId, id);
  const d = isUuid(deliveryId) ? await repo.findDelivery(deps.db, projectId, e.id, deliveryId) : undefined;
  if (!d) throw notFound('Delivery');
  if (d.eventType === 'webhook.test')
    throw new AppError('CONFLICT', 'Test deliveries are not retried; send a new test');
  if (!e.enabled) throw new AppError('CONFLICT', 'The endpoint is disabled; enable it first');
  const now = deps.clock.now();
  await deps.db.transaction((tx) => queueRetry(tx, e.id, d.id, now));
  const row = await repo.findDelivery(deps.db, projectId, e.id, d.id);
  if (!row) throw notFound('Delivery');
  return deliveryView(row);
}

/** Start-up step: every endpoint's signing secret sealed with the current key (lib/secret-places.ts `resealAll`). */
export async function resealWebhookSecrets(deps: Pick<Deps, 'db' | 'config' | 'secret'>): Promise<ResealCount> {
  return resealColumn(deps, webhookEndpoints, webhookEndpoints.id, webhookEndpoints.secret, secretPlaces.webhookSecret);
}
