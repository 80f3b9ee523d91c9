import { sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { AppError } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { compileStaged, type StagedPredicate } from '../segments/compile.js';
import { dueTick } from './schedule.js';
import { startBatch } from './start-batch.js';

/**
 * SCHEDULE triggers at run time (the `workflows:schedule` job, every minute). Exactly once per tick
 * per contact, with any number of workers:
 * 1. {@link claimDueTicks}: for each enabled SCHEDULE workflow, the latest tick of its cron (in its
 *    project's time zone) that is due and after `trigger_since` becomes a `workflow_schedule_ticks`
 *    row; the unique key (workflow, tick time) makes a tick claimed by two workers one row.
 * 2. {@link runPendingTicks}: each PENDING tick starts its contacts in batches of
 *    {@link SCHEDULE_BATCH}, in contact id order. A batch is one transaction that takes the tick row
 *    `FOR UPDATE SKIP LOCKED`, starts the contacts after `after_contact_id` set-based (start-batch.ts)
 *    and moves `after_contact_id` on: a second worker skips a tick being run, a crash rolls the batch
 *    back whole and the next run resumes after the last committed batch. No transaction lasts longer
 *    than a batch, however large the segment.
 */

/** Contacts one batch of a tick starts, in one transaction. */
export const SCHEDULE_BATCH = 500;

/** Finished ticks are kept this long (the latest of each workflow always: it is what the next claim compares with). */
const KEEP_TICKS_DAYS = 7;

type ScheduledWorkflow = {
  id: string;
  project_id: string;
  cron: string;
  since: Date;
  time_zone: string;
};

/**
 * Step 1 (see above): writes a PENDING tick for every enabled SCHEDULE workflow whose tick is due at
 * the clock's now, and drops old finished ticks. A workflow whose cron no longer reads is logged and
 * skipped. @returns the ticks this call wrote (0 when another worker wrote them first).
 */
export async function claimDueTicks(deps: Pick<Deps, 'db' | 'clock' | 'log'>): Promise<number> {
  const now = deps.clock.now();
  const r = await deps.db.execute<ScheduledWorkflow>(sql`
    select w.id, w.project_id, w.trigger_config->>'cron' as cron, coalesce(w.trigger_since, w.updated_at) as since, p.time_zone
    from workflows w join projects p on p.id = w.project_id
    where w.enabled and w.trigger_type = 'SCHEDULE'`);
  const due: Array<{ id: string; workflow_id: string; project_id: string; tick_at: string }> = [];
  for (const w of r.rows) {
    try {
      const at = dueTick(w.cron, w.time_zone, new Date(w.since), now);
      if (at) due.push({ id: newId(), workflow_id: w.id, project_id: w.project_id, tick_at: at.toISOString() });
    } catch (err) {
      deps.log.warn({ workflowId: w.id, cron: w.cron, err }, 'schedule trigger skipped: its cron does not read');
    }
  }
  await deps.db.execute(sql`
    delete from workflow_schedule_ticks t where t.status <> 'PENDING'
      and t.tick_at < ${now.toISOString()}::timestamptz - make_interval(days => ${KEEP_TICKS_DAYS})
      and exists (select 1 from workflow_schedule_ticks n where n.workflow_id = t.workflow_id and n.tick_at > t.tick_at)`);
  if (!due.length) return 0;
  const ins = await deps.db.execute(sql`
    insert into workflow_schedule_ticks (id, workflow_id, project_id, tick_at, created_at)
    select d.id, d.workflow_id, d.project_id, d.tick_at, ${now.toISOString()}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(due)}::jsonb) as d(id uuid, workflow_id uuid, project_id uuid, tick_at timestamptz)
    on conflict (workflow_id, tick_at) do nothing returning id`);
  return ins.rows.length;
}

type LockedTick = {
  id: string;
  workflow_id: string;
  project_id: string;
  tick_at: Date;
  after_contact_id: string | null;
  enabled: boolean;
  trigger_type: string;
  segment_id: string | null;
  allow_reentry: boolean;
};

/** The contacts of a tick after `after`, at most a batch, in id order: `select c.id …` of the project or its segment. */
function batchOf(projectId: string, predicate: StagedPredicate | null, after: string | null): SQL {
  const where = predicate
    ? sql`${predicate.first}${predicate.later ? sql` and ${predicate.later}` : sql``}`
    : sql`true`;
  return sql`select c.id from contacts c where c.project_id = ${projectId}
    ${after ? sql`and c.id > ${after}::uuid` : sql``} and ${where}
    order by c.id limit ${SCHEDULE_BATCH}`;
}

/**
 * Runs one tick to its end, batch after batch (see above); returns at once when another worker holds
 * it. The segment's condition is compiled once (its membership is read per batch, live). A tick whose
 * workflow was disabled or given another trigger since, or whose segment no longer compiles (deleted),
 * is SKIPPED (the latter logged).
 * @returns the executions it started.
 */
export async function runTick(deps: Pick<Deps, 'db' | 'clock' | 'log'>, tickId: string): Promise<number> {
  let predicate: StagedPredicate | null | undefined;
  let started = 0;
  for (;;) {
    const more = await deps.db.transaction(async (tx) => {
      const r = await tx.execute<LockedTick>(sql`
        select t.id, t.workflow_id, t.project_id, t.tick_at, t.after_contact_id::text, w.enabled, w.trigger_type,
          w.trigger_config->>'segmentId' as segment_id, w.allow_reentry
        from workflow_schedule_ticks t join workflows w on w.id = t.workflow_id
        where t.id = ${tickId} and t.status = 'PENDING' for update of t skip locked`);
      const tick = r.rows[0];
      if (!tick) return false;
      const end = (status: 'DONE' | 'SKIPPED') =>
        tx.execute(sql`update workflow_schedule_ticks set status = ${status},
          completed_at = ${deps.clock.now().toISOString()}::timestamptz where id = ${tick.id}`);
      if (!tick.enabled || tick.trigger_type !== 'SCHEDULE') {
        await end('SKIPPED');
        return false;
      }
      if (predicate === undefined) {
        try {
          predicate = tick.segment_id
            ? await compileStaged(
                {
                  logic: 'AND',
                  groups: [{ filters: [{ field: `segment.${tick.segment_id}`, operator: 'memberOfSegment' }] }],
                },
                { db: tx, projectId: tick.project_id, now: deps.clock.now() },
              )
            : null;
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          deps.log.warn(
            { tickId, workflowId: tick.workflow_id, err: err.message },
            'schedule tick skipped: its segment does not compile',
          );
          await end('SKIPPED');
          return false;
        }
      }
      const res = await startBatch(tx, {
        workflowId: tick.workflow_id,
        projectId: tick.project_id,
        allowReentry: tick.allow_reentry,
        contacts: batchOf(tick.project_id, predicate, tick.after_contact_id),
        triggerData: { scheduleTickId: tick.id, tickAt: new Date(tick.tick_at).toISOString() },
        now: deps.clock.now(),
      });
      started += res.started;
      await tx.execute(sql`update workflow_schedule_ticks
        set after_contact_id = coalesce(${res.lastContactId}::uuid, after_contact_id), started = started + ${res.started}
        where id = ${tick.id}`);
      if (res.contacts < SCHEDULE_BATCH) {
        await end('DONE');
        return false;
      }
      return true;
    });
    if (!more) return started;
  }
}

/** Step 2 (see above): runs every PENDING tick, oldest first. @returns the executions started. */
export async function runPendingTicks(deps: Pick<Deps, 'db' | 'clock' | 'log'>): Promise<number> {
  const r = await deps.db.execute<{ id: string }>(
    sql`select id from workflow_schedule_ticks where status = 'PENDING' order by id`,
  );
  let started = 0;
  for (const t of r.rows) started += await runTick(deps, t.id);
  return started;
}

/** The `workflows:schedule` job: claims the due ticks, then runs every pending one. @returns the executions started. */
export async function runSchedules(deps: Pick<Deps, 'db' | 'clock' | 'log'>): Promise<number> {
  await claimDueTicks(deps);
  return runPendingTicks(deps);
}
