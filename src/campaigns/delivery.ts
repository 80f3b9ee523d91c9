import { sql, type SQL } from 'drizzle-orm';
import type { CampaignDelivery } from '../db/schema.js';
import { AppError, invalid, notFound } from '../http/errors.js';
import { zodIssuesToFieldErrors } from '../http/zod-issues.js';
import { jobSpecSql } from '../worker/graphile.js';
import { DELIVERY_MAX_ATTEMPTS, SEND_BATCH_SIZE, sendBatchJob } from '../emails/emails.jobs.js';
import { isoDays } from './delivery-window.js';
import { deliveryBody, type DeliveryInput, type DeliveryPreviewQuery } from './delivery.schema.js';
import type { Deps } from '../deps.js';
import { timeZoneOf } from '../projects/projects.repo.js';
import { recipientFilter } from './audience.js';
import { getCampaign } from './campaigns.repo.js';
import { isUuid } from '../lib/ids.js';

/**
 * Send windows and local time (issue 37): how a campaign's mail is handed out over time.
 *
 * - `now` (the default, also a campaign without `delivery`): every mail at once, the throttle
 *   (`EMAIL_RATE_LIMIT_PER_SECOND`) aside. With a `window`, the send waits for the window's next
 *   opening in the project's time zone when it starts outside it.
 * - `spread`: the i-th of N mails is due at start + i/N × `spreadHours`; with a `window` (project
 *   zone), a mail whose moment falls outside it waits for the next opening.
 * - `local-time`: each contact's mail is due at the next `localTime` in the contact's zone (contact
 *   data `timezone`; a name PostgreSQL does not know, or none, is the project's `time_zone`) from the
 *   start, on the window's days when a window is given (read in the contact's zone).
 *
 * The due moment of each mail is computed in the fan-out statement (migration 0033's SQL functions,
 * the same rules as delivery-window.ts), stored in `emails.due_at`, and the mails due at the same
 * moment share `emails:send-batch` jobs whose `run_at` is that moment. The throttle does not apply to
 * mail with a due moment: spreading is the way to slow such a send down.
 */

/** The `delivery` to store: null for plain "now" (today's behaviour), else only the fields the mode uses. */
export function deliveryToStore(d: DeliveryInput | null | undefined): CampaignDelivery | null {
  if (!d || (d.mode === 'now' && !d.window)) return null;
  return {
    mode: d.mode,
    ...(d.mode === 'spread' ? { spreadHours: d.spreadHours } : {}),
    ...(d.mode === 'local-time' ? { localTime: d.localTime } : {}),
    ...(d.window ? { window: d.window } : {}),
  };
}

/** `delivery` of a campaign as the API answers it. */
export function deliveryOutOf(d: CampaignDelivery | null, endsAt: Date | null) {
  return { ...(d ?? { mode: 'now' as const }), endsAt: endsAt?.toISOString() ?? null };
}

/**
 * @throws AppError 422 `delivery.mode` for an A/B/n campaign with a delivery other than plain "now":
 * its test mail must go out at once, so that the winner is judged on equal footing and on time.
 */
export function assertDeliveryFitsExperiment(delivery: CampaignDelivery | null, experiment: unknown): void {
  if (delivery && experiment)
    throw invalid(
      'delivery.mode',
      'An A/B test sends its test mail at once so that the winner is chosen on time; send it "now", without a window',
    );
}

/** The `time` and `int[]` parameters of a window. */
const windowArgs = (w: NonNullable<CampaignDelivery['window']>) => ({
  from: sql`${w.from}::time`,
  to: sql`${w.to}::time`,
  days: sql`${`{${isoDays(w.days).join(',')}}`}::int[]`,
});

export interface DueContext {
  /** The send's start (business time). */
  start: Date;
  /** The mail's 0-based position in the send (spread). */
  index: SQL;
  /** The number of mails of the send (spread). */
  total: SQL;
  /** The contact's zone, already checked against `pg_timezone_names` (null: unknown). */
  contactZone: SQL;
  /** The project's `time_zone`. */
  projectZone: string;
}

/** Whether a delivery gives its mails due moments (else they go at once, as always). */
export const hasDueMoments = (d: CampaignDelivery | null): d is CampaignDelivery => d !== null;

/**
 * The SQL expression of one mail's due moment under `d` (see the module comment). Calls the
 * functions of migration 0033, so the same rules hold in the fan-out and in the delivery preview.
 */
export function dueSql(d: CampaignDelivery, x: DueContext): SQL {
  const start = sql`${x.start.toISOString()}::timestamptz`;
  const projectZone = sql`${x.projectZone}::text`;
  const w = d.window ? windowArgs(d.window) : null;
  const inWindow = (t: SQL, zone: SQL) => (w ? sql`pigeon_window_at(${t}, ${zone}, ${w.from}, ${w.to}, ${w.days})` : t);
  if (d.mode === 'local-time') {
    const zone = sql`coalesce(${x.contactZone}, ${projectZone})`;
    return sql`pigeon_next_local(${start}, ${zone}, ${d.localTime!}::time, ${w ? w.days : sql`null::int[]`})`;
  }
  if (d.mode === 'spread') {
    const t = sql`(${start} + ((${x.index})::float8 / greatest(${x.total}, 1)::float8) * ${d.spreadHours! * 3600}::float8 * interval '1 second')`;
    return inWindow(t, projectZone);
  }
  return inWindow(start, projectZone);
}

/** A CTE body of the zone names PostgreSQL knows, read once per statement (the view is slow to read). */
export const zoneNamesSql = sql`select name from pg_timezone_names`;

/**
 * The send jobs of a fan-out batch whose rows have due moments: the rows of `inserted` (returning
 * `id`, `status`, `due_at`) due at the same moment share `emails:send-batch` jobs of up to
 * SEND_BATCH_SIZE, each with `run_at` at that moment. Due moments are business time (the clock the
 * start was read on, `businessNow`) and `run_at` is the database's clock: the job runs after the
 * same delay. Priorities as batchJobSpecs (the k-th job of the statement at `priorityBase + k`).
 */
export function dueJobSpecs(inserted: string, priorityBase: SQL, maxPriority: number, businessNow: Date): SQL {
  const ins = sql.raw(inserted);
  const spec = jobSpecSql(sendBatchJob.name, sql`json_build_object('emailIds', array_agg(g.id order by g.id))`, {
    runAt: sql`now() + (g.due_at - ${businessNow.toISOString()}::timestamptz)`,
    maxAttempts: DELIVERY_MAX_ATTEMPTS,
    priority: sql`least(${maxPriority}, ${priorityBase} + (dense_rank() over (order by g.due_at, g.grp))::int - 1)`,
  });
  return sql`select ${spec}
    from (select i.id, i.due_at, (row_number() over (partition by i.due_at order by i.id) - 1) / ${SEND_BATCH_SIZE} as grp
      from ${ins} i where i.status = 'PENDING') g
    group by g.due_at, g.grp`;
}

/** The delivery a preview query describes. @throws AppError 422 naming `delivery.…` as a campaign body would. */
function draftDelivery(q: DeliveryPreviewQuery): CampaignDelivery | null {
  const window =
    q.from || q.to || q.days ? { from: q.from, to: q.to, days: q.days ? q.days.split(',') : [] } : undefined;
  const parsed = deliveryBody.safeParse({
    mode: q.mode,
    spreadHours: q.spreadHours,
    localTime: q.localTime || undefined,
    window,
  });
  if (!parsed.success) {
    const errors = zodIssuesToFieldErrors(parsed.error.issues, 'delivery');
    throw new AppError('VALIDATION_ERROR', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors });
  }
  return deliveryToStore(parsed.data);
}

/**
 * `GET /campaigns/:id/delivery-preview`: how many of the campaign's mails are due in each hour under its
 * `delivery`, computed in SQL over the audience as it is now (the contacts' zones included), from the
 * campaign's start (SENDING/SENT), its schedule (SCHEDULED), or now (DRAFT). Mail without a due
 * moment counts at the start. @throws AppError 404; 422 audience.
 */
export async function deliveryPreview(deps: Deps, projectId: string, id: string, q: DeliveryPreviewQuery = {}) {
  const c = isUuid(id) ? await getCampaign(deps.db, projectId, id) : undefined;
  if (!c) throw notFound('Campaign');
  const now = deps.clock.now();
  const start =
    c.status === 'SENDING' || c.status === 'SENT'
      ? (c.sentAt ?? now)
      : c.scheduledFor && c.scheduledFor > now
        ? c.scheduledFor
        : now;
  const where = await recipientFilter(deps.db, c, now);
  const d = q.mode ? draftDelivery(q) : c.delivery;
  const due = d
    ? dueSql(d, {
        start,
        index: sql`a.i`,
        total: sql`a.n`,
        contactZone: sql`z.name`,
        projectZone: await timeZoneOf(deps.db, projectId),
      })
    : sql`${start.toISOString()}::timestamptz`;
  const r = await deps.db.execute<{ at: string; count: number }>(sql`
    with zones as materialized (${zoneNamesSql}),
      a as (select c.data->>'timezone' as tz, row_number() over (order by c.id) - 1 as i, count(*) over () as n
        from contacts c where ${where})
    select date_trunc('hour', ${due}) as at, count(*)::int as count
    from a left join zones z on z.name = a.tz group by 1 order by 1`);
  const buckets = r.rows.map((b) => ({ at: new Date(b.at).toISOString(), count: b.count }));
  return { start: start.toISOString(), total: buckets.reduce((s, b) => s + b.count, 0), buckets };
}
