import { sql } from 'drizzle-orm';
import { executePrepared, uuidArray } from '../db/prepared.js';
import type { Db } from '../db/pool.js';
import type { SqlRunner } from '../db/tx.js';
import { enqueue } from '../worker/jobs.js';
import type { AttemptResult } from './attempt.js';
import { webhookDisabledMailJob } from './webhook-endpoints.jobs.js';

/**
 * Every change of an event webhook delivery's status (`webhook_deliveries.status`: PENDING →
 * SUCCEEDED | FAILED, and back to PENDING by a retry), and of its endpoint's failing streak, is
 * written here. Deliveries are queued PENDING by fanout.ts; the worker's dispatcher (dispatch/)
 * attempts them and records each attempt through {@link recordAttempts}.
 */

/** Seconds to wait after failed attempt n (index n-1) before the next: about 28 h in all, then FAILED. */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;
/** Attempts per delivery: the first plus one per entry of {@link RETRY_DELAYS_SECONDS}. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** An endpoint whose attempts have failed (with no success) for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
/** `disabledReason` of an endpoint the service disabled. */
export const DISABLED_REASON = 'Every attempt failed for 5 days';
/**
 * The channel the dispatchers LISTEN on; the payload is an endpoint id. The insert trigger
 * `webhook_deliveries_notify` (migration 0019) notifies it for every queued delivery.
 */
export const DELIVERIES_CHANNEL = 'pigeon_webhook_deliveries';

/** One finished attempt of a PENDING delivery that had `attempts` attempts before it. */
export interface AttemptRecord {
  id: string;
  endpointId: string;
  attempts: number;
  /** When the attempt started. */
  at: Date;
  result: AttemptResult;
}

/** The status and next attempt that `r` leads to, by the retry schedule. */
export function outcomeOf(r: AttemptRecord): { status: 'SUCCEEDED' | 'PENDING' | 'FAILED'; next: Date | null } {
  if (r.result.ok) return { status: 'SUCCEEDED', next: null };
  const n = r.attempts + 1;
  if (n >= MAX_ATTEMPTS) return { status: 'FAILED', next: null };
  return { status: 'PENDING', next: new Date(r.at.getTime() + RETRY_DELAYS_SECONDS[n - 1] * 1000) };
}

/**
 * Records finished attempts, in one transaction: each delivery's log fields and its next state
 * ({@link outcomeOf}); a success ends its endpoint's failing streak, a failure starts one; an endpoint
 * failing for {@link DISABLE_AFTER_MS} is disabled and its project's OWNERs and ADMINs are mailed (a
 * `webhooks:disabled-mail` job). An attempt whose delivery moved on meanwhile (a manual retry, or
 * another worker that took the endpoint over after this one's lease lapsed) changes nothing: the
 * update requires the delivery still PENDING with the attempt count it had.
 */
export async function recordAttempts(db: Pick<Db, 'transaction'>, records: AttemptRecord[]): Promise<void> {
  if (!records.length) return;
  const rows = records.map((r) => {
    const o = outcomeOf(r);
    return {
      id: r.id,
      prior: r.attempts,
      status: o.status,
      at: r.at.toISOString(),
      next: o.next?.toISOString() ?? null,
      response_status: r.result.status,
      response_body: r.result.body,
      latency_ms: r.result.latencyMs,
      error: r.result.error,
    };
  });
  await db.transaction(async (tx) => {
    const done = await executePrepared<{ id: string }>(
      tx,
      sql`update webhook_deliveries d set status = r.status,
        attempts = r.prior + 1, last_attempt_at = r.at, next_attempt_at = r.next, response_status = r.response_status,
        response_body = r.response_body, latency_ms = r.latency_ms, error = r.error
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id uuid, prior int, status text, at timestamptz,
        next timestamptz, response_status int, response_body text, latency_ms int, error text)
      where d.id = r.id and d.status = 'PENDING' and d.attempts = r.prior
      returning d.id`,
    );
    const recorded = new Set(done.rows.map((r) => r.id));
    const streaks = streaksOf(records.filter((r) => recorded.has(r.id)));
    if (!streaks.length) return;
    await tx.execute(sql`update webhook_endpoints e
      set failing_since = case when s.clear then s.since else coalesce(e.failing_since, s.since) end
      from jsonb_to_recordset(${JSON.stringify(streaks)}::jsonb) as s(id uuid, clear boolean, since timestamptz)
      where e.id = s.id and (case when s.clear then e.failing_since is distinct from s.since else e.failing_since is null end)`);
    const failing = streaks.filter((s) => s.since).map((s) => s.id);
    if (!failing.length) return;
    const now = new Date(Math.max(...records.map((r) => r.at.getTime())));
    const off = await tx.execute<{ id: string }>(sql`update webhook_endpoints
      set enabled = false, disabled_reason = ${DISABLED_REASON}, updated_at = ${now.toISOString()}::timestamptz
      where id = any(${uuidArray(failing)}) and enabled
        and failing_since <= ${new Date(now.getTime() - DISABLE_AFTER_MS).toISOString()}::timestamptz
      returning id`);
    for (const e of off.rows) await enqueue(tx, webhookDisabledMailJob, { endpointId: e.id });
  });
}

/**
 * Per endpoint, what its recorded attempts do to its failing streak: after a success (`clear`) the
 * streak is whatever failures came after the last success (`since`: the first of them, or null);
 * without one, `since` is the first failure (kept only when no streak was running).
 */
function streaksOf(records: AttemptRecord[]): Array<{ id: string; clear: boolean; since: string | null }> {
  const by = new Map<string, AttemptRecord[]>();
  for (const r of records) by.set(r.endpointId, [...(by.get(r.endpointId) ?? []), r]);
  return [...by].map(([id, list]) => {
    const lastOk = Math.max(-Infinity, ...list.filter((r) => r.result.ok).map((r) => r.at.getTime()));
    const after = list.filter((r) => !r.result.ok && r.at.getTime() > lastOk).map((r) => r.at.getTime());
    const since = after.length ? new Date(Math.min(...after)).toISOString() : null;
    return { id, clear: lastOk > -Infinity, since };
  });
}

/**
 * Ends every queued delivery of endpoint `endpointId` (disabled) as FAILED unsent, error "Endpoint
 * disabled"; a retry from the log queues it again once the endpoint is enabled. Test deliveries (sent
 * at once, never queued) are left alone. @returns how many were ended.
 */
export async function failQueuedOfDisabled(db: SqlRunner, endpointId: string): Promise<number> {
  const r =
    await db.execute(sql`update webhook_deliveries set status = 'FAILED', next_attempt_at = null, error = 'Endpoint disabled'
    where endpoint_id = ${endpointId} and status = 'PENDING' and next_attempt_at is not null
      and exists (select 1 from webhook_endpoints e where e.id = ${endpointId} and not e.enabled)`);
  return r.rowCount ?? 0;
}

/**
 * Queues delivery `id` of endpoint `endpointId` for an attempt now, in `tx`: a FAILED or SUCCEEDED one
 * becomes PENDING with its attempts starting over; a PENDING one keeps its count and has its next
 * attempt moved to now. Wakes the dispatchers.
 */
export async function queueRetry(tx: SqlRunner, endpointId: string, id: string, now: Date): Promise<void> {
  await tx.execute(sql`update webhook_deliveries set next_attempt_at = ${now.toISOString()}::timestamptz,
      attempts = case when status = 'PENDING' then attempts else 0 end, status = 'PENDING'
    where id = ${id} and endpoint_id = ${endpointId}`);
  await tx.execute(sql`select pg_notify(${DELIVERIES_CHANNEL}, ${endpointId})`);
}

/** Records the one attempt of a test delivery (never retried): SUCCEEDED or FAILED. */
export async function recordTestAttempt(tx: SqlRunner, id: string, at: Date, result: AttemptResult): Promise<void> {
  await tx.execute(sql`update webhook_deliveries set status = ${result.ok ? 'SUCCEEDED' : 'FAILED'}, attempts = 1,
      last_attempt_at = ${at.toISOString()}::timestamptz, response_status = ${result.status}, response_body = ${result.body},
      latency_ms = ${result.latencyMs}, error = ${result.error}
    where id = ${id}`);
}
