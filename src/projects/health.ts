import { sql } from 'drizzle-orm';
import { AppError } from '../http/errors.js';
import type { SqlRunner } from '../db/tx.js';

/**
 * Sender health: a project's bounce and complaint rates, and the pause of its bulk mail when they
 * reach the critical line.
 *
 * Rates, per window of the last 7 and the last 30 days (ending now):
 * - `sent`: the project's emails queued (`created_at`) in the window that were handed to a transport,
 *   i.e. whose status is SENT, DELIVERED, OPENED, CLICKED, BOUNCED or COMPLAINED (a bounce or a
 *   complaint is a sent mail too; PENDING, SENDING, FAILED and SUPPRESSED mail never left);
 * - `bounced` / `complained`: those of them whose status is BOUNCED / COMPLAINED (a hard bounce at
 *   SMTP time, or one or a complaint reported later by the provider);
 * - bounce rate = bounced / sent, complaint rate = complained / sent (0 when nothing was sent).
 * All mail counts: transactional, campaign and workflow alike, as mailbox providers and Amazon SES
 * count it.
 *
 * Levels of a rate: `warning` at or above Amazon SES's review thresholds (5 % bounces, 0.1 %
 * complaints), `critical` at or above 10 % bounces or 0.5 % complaints; below
 * {@link HEALTH_MIN_SENT} sent mails in the window the level stays `healthy` (three mails with one
 * bounce say nothing). A window's level is the worse of its two rates; the project's, the worse of
 * its two windows.
 *
 * Pause: while critical, campaign sends and MARKETING mail of workflows stop (403 `SENDING_PAUSED`
 * where a request starts them) until an OWNER or ADMIN acknowledges. Transactional mail (`/v1/send`,
 * TRANSACTIONAL workflow mail) keeps flowing. Acknowledging starts a new count: the pause is decided
 * on the same windows cut at the acknowledgement, so it comes back only when mail queued after it
 * reaches the critical line again (with at least {@link HEALTH_MIN_SENT} sent).
 */

export type HealthLevel = 'healthy' | 'warning' | 'critical';

/** Warning and critical lines of the rates (fractions of sent mail). */
export const HEALTH_THRESHOLDS = {
  bounce: { warning: 0.05, critical: 0.1 },
  complaint: { warning: 0.001, critical: 0.005 },
} as const;

/** Below this many sent mails in a window, its level is `healthy` whatever the rates. */
export const HEALTH_MIN_SENT = 100;

/** The pause check's answer is kept this long per project in each process (it runs per batch). */
export const HEALTH_CACHE_MS = 30_000;

/** Counts and rates of one window. Rates are fractions (0.05 = 5 %), rounded to 6 decimals. */
export interface WindowHealth {
  days: number;
  sent: number;
  bounced: number;
  complained: number;
  bounceRate: number;
  complaintRate: number;
  bounceLevel: HealthLevel;
  complaintLevel: HealthLevel;
  level: HealthLevel;
}

/** The sender health of a project, as `GET /projects/:id/security` shows it. */
export interface SenderHealth {
  level: HealthLevel;
  last7Days: WindowHealth;
  last30Days: WindowHealth;
  /** True while campaign and MARKETING workflow mail is paused (critical since the acknowledgement). */
  paused: boolean;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  thresholds: typeof HEALTH_THRESHOLDS;
  minimumSent: number;
}

const ORDER: HealthLevel[] = ['healthy', 'warning', 'critical'];
const worse = (a: HealthLevel, b: HealthLevel): HealthLevel => (ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b);

function levelOf(rate: number, sent: number, t: { warning: number; critical: number }): HealthLevel {
  if (sent < HEALTH_MIN_SENT) return 'healthy';
  return rate >= t.critical ? 'critical' : rate >= t.warning ? 'warning' : 'healthy';
}

type Counts = { sent: number; bounced: number; complained: number };

function windowHealth(days: number, c: Counts): WindowHealth {
  const bounceRate = c.sent ? c.bounced / c.sent : 0;
  const complaintRate = c.sent ? c.complained / c.sent : 0;
  const bounceLevel = levelOf(bounceRate, c.sent, HEALTH_THRESHOLDS.bounce);
  const complaintLevel = levelOf(complaintRate, c.sent, HEALTH_THRESHOLDS.complaint);
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  return {
    days,
    ...c,
    bounceRate: round(bounceRate),
    complaintRate: round(complaintRate),
    bounceLevel,
    complaintLevel,
    level: worse(bounceLevel, complaintLevel),
  };
}

const DAY_MS = 86_400_000;

/**
 * Computes a project's sender health in one query: an index-only range scan of the last 30 days of
 * its emails (`emails_project_created_idx` on project, created_at, status), grouped into at most
 * 4 × 6 rows. `ack` is the project's acknowledgement (null: none).
 */
export async function computeHealth(
  db: SqlRunner,
  projectId: string,
  now: Date,
  ack: { at: Date | null; by: string | null },
): Promise<SenderHealth> {
  const since30 = new Date(now.getTime() - 30 * DAY_MS).toISOString();
  const since7 = new Date(now.getTime() - 7 * DAY_MS).toISOString();
  const ackAt = ack.at?.toISOString() ?? null;
  const r = await db.execute<{ recent: boolean; after_ack: boolean; status: string; n: number }>(sql`
    select created_at >= ${since7}::timestamptz as recent,
      coalesce(created_at > ${ackAt}::timestamptz, true) as after_ack, status, count(*)::int as n
    from emails
    where project_id = ${projectId} and created_at >= ${since30}::timestamptz
      and status in ('SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED')
    group by 1, 2, 3`);
  const zero = (): Counts => ({ sent: 0, bounced: 0, complained: 0 });
  const all = { d7: zero(), d30: zero() };
  const sinceAck = { d7: zero(), d30: zero() };
  for (const row of r.rows) {
    const targets = [
      all.d30,
      ...(row.recent ? [all.d7] : []),
      ...(row.after_ack ? [sinceAck.d30, ...(row.recent ? [sinceAck.d7] : [])] : []),
    ];
    for (const t of targets) {
      t.sent += row.n;
      if (row.status === 'BOUNCED') t.bounced += row.n;
      if (row.status === 'COMPLAINED') t.complained += row.n;
    }
  }
  const last7Days = windowHealth(7, all.d7);
  const last30Days = windowHealth(30, all.d30);
  const paused = worse(windowHealth(7, sinceAck.d7).level, windowHealth(30, sinceAck.d30).level) === 'critical';
  return {
    level: worse(last7Days.level, last30Days.level),
    last7Days,
    last30Days,
    paused,
    acknowledgedAt: ackAt,
    acknowledgedBy: ack.by,
    thresholds: HEALTH_THRESHOLDS,
    minimumSent: HEALTH_MIN_SENT,
  };
}

/** Reads the acknowledgement and computes the health (no cache); refreshes the pause cache. */
export async function senderHealth(db: SqlRunner, projectId: string, now: Date): Promise<SenderHealth> {
  const r = await db.execute<{ at: string | null; by: string | null }>(sql`
    select health_acknowledged_at as at, health_acknowledged_by as by from projects where id = ${projectId}`);
  const row = r.rows[0];
  const health = await computeHealth(db, projectId, now, {
    at: row?.at ? new Date(row.at) : null,
    by: row?.by ?? null,
  });
  cache.set(projectId, { until: Date.now() + HEALTH_CACHE_MS, health });
  return health;
}

const cache = new Map<string, { until: number; health: SenderHealth }>();

/** Forgets the cached health of a project (after its acknowledgement, in this process). */
export const forgetHealth = (projectId: string): void => {
  cache.delete(projectId);
};

/**
 * THE pause check, run where a campaign starts sending (request, scheduled start, each fan-out batch)
 * and where a workflow SEND_EMAIL step sends MARKETING mail. Cached per project for
 * {@link HEALTH_CACHE_MS} in each process, so a burst of batches costs one query; an acknowledgement
 * takes effect at once in the process that took it and within that time in the others.
 * @returns null when bulk mail may go, else the 403 `SENDING_PAUSED` error to throw or record.
 */
export async function marketingPause(db: SqlRunner, projectId: string, now: Date): Promise<AppError | null> {
  const hit = cache.get(projectId);
  const health = hit && hit.until > Date.now() ? hit.health : await senderHealth(db, projectId, now);
  if (cache.size > 10_000) cache.clear();
  if (!health.paused) return null;
  const w = health.last7Days.level === 'critical' ? health.last7Days : health.last30Days;
  return new AppError(
    'SENDING_PAUSED',
    `Campaign and marketing sends are paused: the bounce rate (${pct(w.bounceRate)}) or complaint rate (${pct(w.complaintRate)}) ` +
      `of the last ${w.days} days is at the critical level`,
    {
      details: { level: health.level, bounceRate: w.bounceRate, complaintRate: w.complaintRate, days: w.days },
      suggestion:
        'Clean the audience (remove bounced and complaining addresses), then have an OWNER or ADMIN acknowledge with POST /projects/:id/security/acknowledge. Transactional mail is not paused.',
    },
  );
}

const pct = (x: number) => `${(x * 100).toFixed(2)} %`;

/** {@link marketingPause} that throws. @throws AppError 403 SENDING_PAUSED. */
export async function assertMarketingNotPaused(db: SqlRunner, projectId: string, now: Date): Promise<void> {
  const err = await marketingPause(db, projectId, now);
  if (err) throw err;
}
