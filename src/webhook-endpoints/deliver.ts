import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import type { Deps } from '../deps.js';
import { RefusedAddressError, safeRequest } from '../lib/safe-http.js';
import { keyring, secretPlaces } from '../lib/secret-places.js';
import { openSecret } from '../lib/secrets.js';
import { deliverAccountMail } from '../users/account-mail.js';
import { enqueue } from '../worker/jobs.js';
import { deliveryJobKey, endpointQueue } from './fanout.js';
import { webhookDeliverJob, webhookDisabledMailJob } from './webhook-endpoints.jobs.js';

/**
 * One attempt of an event webhook delivery, signed per the Standard Webhooks specification
 * (standardwebhooks.com; headers `webhook-id` = the delivery id, the same on every attempt,
 * `webhook-timestamp` = the attempt's Unix time in seconds, `webhook-signature` = `v1,<base64
 * HMAC-SHA256 of "id.timestamp.body">`), sent through the SSRF-safe client (lib/safe-http.ts, the
 * rules of workflow WEBHOOK steps). A 2xx answer is delivered; anything else (another status, a
 * timeout, a network error, a refused address) is a failed attempt.
 */

/** Seconds to wait after failed attempt n (index n-1) before the next: about 28 h in all, then FAILED. */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;
/** Attempts per delivery: the first plus one per entry of {@link RETRY_DELAYS_SECONDS}. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** An endpoint whose attempts have failed (with no success) for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
/** `disabledReason` of an endpoint the service disabled. */
export const DISABLED_REASON = 'Every attempt failed for 5 days';
/** Each attempt's limit, connection to last byte, redirects included. */
export const TIMEOUT_MS = 10_000;
/** The receiver's answer kept in the delivery log. */
export const RESPONSE_LOG_CHARS = 2048;

type DeliveryRow = {
  id: string;
  project_id: string;
  endpoint_id: string;
  status: string;
  attempts: number;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  url: string;
  secret: string;
  enabled: boolean;
};

/** The result of one attempt. */
export interface AttemptResult {
  ok: boolean;
  status: number | null;
  body: string | null;
  latencyMs: number;
  error: string | null;
}

/** The exact body sent and signed: `{type, timestamp, data}` in that order. */
export const bodyOf = (p: DeliveryRow['payload']) =>
  JSON.stringify({ type: p.type, timestamp: p.timestamp, data: p.data });

/**
 * POSTs `body` to `url` of endpoint `endpointId` signed with its secret (`stored`: sealed,
 * lib/secrets.ts) as message `msgId`, within {@link TIMEOUT_MS}. Never throws: failures, a secret that
 * cannot be opened included, are in the result.
 */
export async function attempt(
  deps: Deps,
  url: string,
  endpointId: string,
  stored: string,
  msgId: string,
  body: string,
): Promise<AttemptResult> {
  const at = deps.clock.now();
  let secret: string;
  try {
    secret = openSecret(keyring(deps), stored, secretPlaces.webhookSecret(endpointId));
  } catch (err) {
    return {
      ok: false,
      status: null,
      body: null,
      latencyMs: 0,
      error: `The signing secret cannot be read: ${(err as Error).message}`,
    };
  }
  const signature = new Webhook(secret).sign(msgId, at, body);
  const headers = {
    'content-type': 'application/json',
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
  const started = performance.now();
  try {
    const res = await safeRequest(
      { url, method: 'POST', headers, body },
      {
        allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
        signal: AbortSignal.timeout(TIMEOUT_MS),
        maxBodyBytes: RESPONSE_LOG_CHARS * 4,
      },
    );
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      status: res.status,
      body: res.body.slice(0, RESPONSE_LOG_CHARS),
      latencyMs: Math.round(performance.now() - started),
      error: ok ? null : `HTTP ${res.status}`,
    };
  } catch (err) {
    const e = err as Error;
    const refused = e instanceof RefusedAddressError || (e as { cause?: unknown }).cause instanceof RefusedAddressError;
    const error =
      e.name === 'TimeoutError' || e.name === 'AbortError'
        ? `Timed out after ${TIMEOUT_MS / 1000} s`
        : refused
          ? `Refused: ${(e instanceof RefusedAddressError ? e : (e as { cause: Error }).cause).message}`
          : e.message;
    return {
      ok: false,
      status: null,
      body: null,
      latencyMs: Math.round(performance.now() - started),
      error: error.slice(0, 500),
    };
  }
}

/**
 * Runs one attempt of delivery `deliveryId` (the `webhooks:deliver` job). Only a PENDING delivery of
 * an enabled endpoint is sent; one of a disabled endpoint ends FAILED unsent. After the attempt, in
 * one transaction: the delivery's log fields, and either SUCCEEDED (the endpoint's failing streak
 * ends), or the next attempt scheduled by {@link RETRY_DELAYS_SECONDS} (FAILED after
 * {@link MAX_ATTEMPTS}); an endpoint failing for {@link DISABLE_AFTER_MS} is disabled and its
 * project's OWNERs and ADMINs are mailed. Delivery is at least once: a worker that dies between the
 * request and the commit sends again (same `webhook-id`).
 */
export async function deliver(deps: Deps, deliveryId: string): Promise<void> {
  const r = await deps.db
    .execute<DeliveryRow>(sql`select d.id, d.project_id, d.endpoint_id, d.status, d.attempts, d.payload,
      e.url, e.secret, e.enabled
    from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where d.id = ${deliveryId}`);
  const row = r.rows[0];
  if (!row || row.status !== 'PENDING') return;
  if (!row.enabled) {
    await deps.db
      .execute(sql`update webhook_deliveries set status = 'FAILED', next_attempt_at = null, error = 'Endpoint disabled'
      where id = ${deliveryId} and status = 'PENDING'`);
    return;
  }
  const res = await attempt(deps, row.url, row.endpoint_id, row.secret, row.id, bodyOf(row.payload));
  const now = deps.clock.now();
  const n = row.attempts + 1;
  const next = !res.ok && n < MAX_ATTEMPTS ? new Date(now.getTime() + RETRY_DELAYS_SECONDS[n - 1] * 1000) : null;
  const status = res.ok ? 'SUCCEEDED' : next ? 'PENDING' : 'FAILED';
  await deps.db.transaction(async (tx) => {
    const u =
      await tx.execute(sql`update webhook_deliveries set status = ${status}, attempts = ${n}, last_attempt_at = ${now.toISOString()}::timestamptz,
        next_attempt_at = ${next?.toISOString() ?? null}::timestamptz, response_status = ${res.status}, response_body = ${res.body},
        latency_ms = ${res.latencyMs}, error = ${res.error}
      where id = ${deliveryId} and status = 'PENDING' and attempts = ${row.attempts}`);
    // Another run (a manual retry racing this one) recorded this attempt already.
    if (!u.rowCount) return;
    if (next)
      await enqueue(
        tx,
        webhookDeliverJob,
        { deliveryId },
        { runAt: next, jobKey: deliveryJobKey(deliveryId), queueName: endpointQueue(row.endpoint_id) },
      );
    if (res.ok) {
      await tx.execute(
        sql`update webhook_endpoints set failing_since = null where id = ${row.endpoint_id} and failing_since is not null`,
      );
      return;
    }
    const limit = new Date(now.getTime() - DISABLE_AFTER_MS).toISOString();
    await tx.execute(sql`update webhook_endpoints set failing_since = ${now.toISOString()}::timestamptz
      where id = ${row.endpoint_id} and failing_since is null`);
    const off =
      await tx.execute(sql`update webhook_endpoints set enabled = false, disabled_reason = ${DISABLED_REASON}, updated_at = ${now.toISOString()}::timestamptz
      where id = ${row.endpoint_id} and enabled and failing_since <= ${limit}::timestamptz`);
    if (off.rowCount) await enqueue(tx, webhookDisabledMailJob, { endpointId: row.endpoint_id });
  });
}

/**
 * Mails every OWNER and ADMIN of the endpoint's project that it was disabled (the account mail
 * transport, users/account-mail.ts). Nothing when the endpoint is gone or enabled again.
 * @throws the transport's error, for the job to retry.
 */
export async function mailEndpointDisabled(deps: Deps, endpointId: string): Promise<void> {
  const r = await deps.db.execute<{
    url: string;
    project_name: string;
    email: string;
  }>(sql`select e.url, p.name as project_name, u.email
    from webhook_endpoints e join projects p on p.id = e.project_id
    join memberships m on m.project_id = e.project_id and m.role in ('OWNER', 'ADMIN') join users u on u.id = m.user_id
    where e.id = ${endpointId} and not e.enabled`);
  for (const row of r.rows) {
    await deliverAccountMail(
      deps,
      row.email,
      `Webhook endpoint disabled in ${row.project_name}`,
      [
        `Every delivery to your webhook endpoint ${row.url} in the project "${row.project_name}" has failed for 5 days, so Pigeon disabled it.`,
        '',
        `Fix the receiver, then enable the endpoint again (PATCH /webhook-endpoints/${endpointId} with {"enabled": true}) and retry the failed deliveries from its delivery log.`,
      ].join('\n'),
    );
  }
}
