import { sql } from 'drizzle-orm';
import type { TriggerConfig, TriggerType } from '../db/schema.js';
import { AppError, invalid } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import type { Tx } from '../db/tx.js';
import { CronError, describeSchedule, nextTick, normaliseCron, parseCron } from './schedule.js';

/**
 * What may start a workflow, and what each kind of trigger needs (the one place these rules live):
 * - `EVENT {eventName}`: an event of that name of a contact (listeners.ts);
 * - `MANUAL {}`: only `POST /workflows/:id/executions` (which starts any workflow by hand);
 * - `SEGMENT_ENTERED {segmentId}` / `SEGMENT_EXITED {segmentId}`: a contact entering (leaving) a
 *   DYNAMIC segment that tracks membership, once per entry (exit): the `segment.<slug>.entry|exit`
 *   event its compute records, matched by `data.segmentId` so a rename changes nothing (listeners.ts);
 * - `SCHEDULE {cron, segmentId?}`: at each tick of a 5-field cron expression in the project's time zone,
 *   every contact of the segment (or of the project), once per tick (schedule.run.ts).
 */

export const TRIGGER_TYPES = ['EVENT', 'MANUAL', 'SEGMENT_ENTERED', 'SEGMENT_EXITED', 'SCHEDULE'] as const;

/** A trigger as a client sends it: the type and the config fields it may carry. */
export interface TriggerInput {
  type: TriggerType;
  config: TriggerConfig;
}

/** Where the errors of {@link resolveTrigger} point: the body's field of each config key. */
export interface TriggerFields {
  eventName: string;
  segmentId: string;
  cron: string;
}

/** The default of {@link TriggerFields}: the keys under `triggerConfig`. */
export const CONFIG_FIELDS: TriggerFields = {
  eventName: 'triggerConfig.eventName',
  segmentId: 'triggerConfig.segmentId',
  cron: 'triggerConfig.cron',
};

/** A segment as a trigger needs to see it. */
type SegmentRow = {
  id: string;
  name: string;
  type: 'DYNAMIC' | 'STATIC';
  track_membership: boolean;
};

async function segmentOf(db: Tx, projectId: string, segmentId: string | undefined, field: string) {
  if (!segmentId) throw invalid(field, 'Name the segment: its id', 'invalid_type', 'undefined');
  const r = isUuid(segmentId)
    ? await db.execute<SegmentRow>(sql`select id, name, type, track_membership from segments
        where id = ${segmentId} and project_id = ${projectId}`)
    : { rows: [] };
  const seg = r.rows[0];
  // Another project's segment reads exactly like one that exists nowhere.
  if (!seg) throw invalid(field, `No segment ${segmentId} in this project`, 'segment_not_found');
  return seg;
}

/**
 * Checks trigger `input` for project `projectId` and answers the config to store (the fields of its
 * type only; a MANUAL trigger keeps an `eventName` it had, as before). `fields` names the body field
 * of each config key in errors (default `triggerConfig.<key>`).
 * @throws AppError 422 VALIDATION_ERROR with one field error: no `eventName` for EVENT; no
 *   `segmentId`, or none of the project's (`segment_not_found`), for the SEGMENT_* triggers; a segment
 *   that records no entries or exits (`segment_not_tracked`: STATIC, or `trackMembership` off, with how
 *   to turn it on); a SCHEDULE without `cron` or with one that is not 5 valid fields (`invalid_cron`),
 *   or whose `segmentId` is not the project's.
 */
export async function resolveTrigger(
  db: Tx,
  projectId: string,
  input: TriggerInput,
  fields: TriggerFields = CONFIG_FIELDS,
): Promise<TriggerConfig> {
  const { type, config } = input;
  switch (type) {
    case 'EVENT':
      if (!config.eventName) throw invalid(fields.eventName, 'An EVENT trigger needs an eventName', 'invalid_type');
      return { eventName: config.eventName };
    case 'MANUAL':
      return config.eventName ? { eventName: config.eventName } : {};
    case 'SEGMENT_ENTERED':
    case 'SEGMENT_EXITED': {
      const seg = await segmentOf(db, projectId, config.segmentId, fields.segmentId);
      if (seg.type !== 'DYNAMIC' || !seg.track_membership) {
        const how =
          seg.type === 'STATIC'
            ? 'a STATIC segment records no entries or exits; use a DYNAMIC segment with trackMembership'
            : `turn it on with PATCH /segments/${seg.id} {"trackMembership": true} (the segment's settings in the dashboard)`;
        throw new AppError('VALIDATION_ERROR', `Segment "${seg.name}" does not track membership: ${how}`, {
          errors: [
            {
              field: fields.segmentId,
              message: `Segment "${seg.name}" does not track membership: ${how}`,
              code: 'segment_not_tracked',
            },
          ],
          details: { segmentId: seg.id, segmentType: seg.type, trackMembership: seg.track_membership },
          suggestion: `PATCH /segments/${seg.id} {"trackMembership": true}`,
        });
      }
      return { segmentId: seg.id };
    }
    case 'SCHEDULE': {
      if (!config.cron) throw invalid(fields.cron, 'A SCHEDULE trigger needs a cron expression', 'invalid_type');
      assertCron(config.cron, fields.cron);
      const out: TriggerConfig = { cron: normaliseCron(config.cron) };
      if (config.segmentId) out.segmentId = (await segmentOf(db, projectId, config.segmentId, fields.segmentId)).id;
      return out;
    }
  }
}

/** @throws AppError 422 `invalid_cron` at `field` when {@link parseCron} refuses `cron`. */
export function assertCron(cron: string, field: string): void {
  try {
    parseCron(cron);
  } catch (err) {
    if (!(err instanceof CronError)) throw err;
    throw invalid(field, `Invalid cron expression: ${err.message}`, 'invalid_cron', cron);
  }
}

/** Whether two triggers are the same (a change of either is refused while executions are live). */
export function sameTrigger(a: TriggerInput, b: TriggerInput): boolean {
  const key = (t: TriggerInput) =>
    JSON.stringify([t.type, t.config.eventName ?? null, t.config.segmentId ?? null, t.config.cron ?? null]);
  return key(a) === key(b);
}

/** What the dashboard shows of a schedule: its sentence, the zone it is read in, and the next tick. */
export interface ScheduleView {
  description: string;
  timeZone: string;
  /** ISO date-time of the next tick after `now`; null when the expression never matches again. */
  nextRunAt: string | null;
}

/** {@link ScheduleView} of a SCHEDULE trigger's `cron` in `timeZone` after `now`. @throws CronError for a bad `cron`. */
export function scheduleView(cron: string, timeZone: string, now: Date): ScheduleView {
  return {
    description: describeSchedule(cron, timeZone),
    timeZone,
    nextRunAt: nextTick(cron, timeZone, now)?.toISOString() ?? null,
  };
}
