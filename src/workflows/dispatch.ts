import { sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { executePrepared, uuidArray } from '../db/prepared.js';
import { SEND_BATCH_SIZE, sendBatchJob, TRANSACTIONAL_PRIORITY } from '../emails/emails.jobs.js';
import { countFailedAttempt, deleteJobs, lockWaitingJobs } from '../worker/graphile.js';
import { jobSpec } from '../worker/jobs.js';
import { CAUSATION_EXIT_REASON, withinCausationLimit } from './causation.js';
import { waitsEndedBy, workflowsStartedBy } from './listeners.js';
import { chainedOrAlone, resume, runChain } from './chain.js';
import { startExecution, type StartInput } from './engine.js';
import { flushShared, sharedWrites, type SharedWrites } from './pending-writes.js';
import type { SendPrefetch } from './steps.run.js';
import type { Tx } from '../db/tx.js';

/**
 * The `workflows:dispatch` job's work: events in, executions started and waits resumed, in event
 * order and in batches (see {@link dispatchEvents}). The steps themselves run in engine.ts.
 */

/** One event a dispatch job reads: what it is, the contact's waits it ends, the workflows it starts. */
interface DispatchedEvent {
  id: string;
  project_id: string;
  contact_id: string | null;
  data: Record<string, unknown>;
  name: string;
  depth: number;
  waiting: Array<{ id: string; step_id: string }>;
  workflows: Array<{ id: string; allow_reentry: boolean }>;
}

/**
 * The `workflows:dispatch {eventIds}` job queued with events (events/emit.ts): for each event, in
 * time order, resumes the contact's executions WAITING for it (only waits that began before the
 * event: ids are UUIDv7, time-ordered), then starts an execution of every enabled workflow of the
 * project it triggers (an EVENT trigger of its name, a segment trigger of its segment: listeners.ts).
 * Each event starts a workflow once per contact: a segment entered, left and entered again is two
 * entry events, so two executions (allowReentry permitting). An event past the causation depth limit (causation.ts) resumes
 * nothing and starts nothing: the executions it would have started are recorded EXITED with the reason.
 *
 * Set-based where it can be: the events are read in one statement, and the starts of consecutive
 * events (with the steps each runs up to its first wait) share one transaction, so a batch of
 * tracked events costs one job, one read and one commit instead of one of each per event. An event
 * that resumes a wait first commits the starts before it, so everything still happens in event
 * order. When the shared transaction fails it is rolled back whole and each start runs in its own
 * (then alone, its first step's job queued, if it fails again: {@link chainedOrAlone}), so one bad
 * execution never holds back the others; a start a retried job repeats is refused by the
 * trigger-event guard of {@link startExecution}.
 */
export async function dispatchEvents(deps: Deps, eventIds: string[]): Promise<void> {
  const events = (
    await executePrepared<DispatchedEvent>(
      deps.db,
      sql`
    select e.id, e.project_id, e.contact_id, e.data, e.name, e.causation_depth as depth,
      coalesce((select json_agg(json_build_object('id', x.id, 'step_id', x.current_step_id))
        from ${waitsEndedBy(sql`e.contact_id`, sql`e.name`)}
          and exists (select 1 from workflow_step_executions se where se.execution_id = x.id and se.step_id = x.current_step_id
            and se.status = 'WAITING' and se.id < e.id)), '[]') as waiting,
      coalesce((select json_agg(json_build_object('id', w.id, 'allow_reentry', w.allow_reentry) order by w.id)
        from ${workflowsStartedBy(sql`e.project_id`, sql`e.name`, sql`e.data`)}), '[]') as workflows
    from events e where e.id = any(${uuidArray(eventIds)}) and e.contact_id is not null
    order by e.id`,
    )
  ).rows;
  let starts: StartInput[] = [];
  // What cannot be written for one event does not stop the others; the job is retried for it
  // (what already happened is not done twice, see above).
  let failed: unknown;
  const keep = (err: unknown) => {
    failed ??= err;
  };
  for (const ev of events) {
    const within = withinCausationLimit(ev.depth);
    if (!within) {
      deps.log.warn(
        {
          eventId: ev.id,
          event: ev.name,
          contactId: ev.contact_id,
          depth: ev.depth,
          workflows: ev.workflows.map((w) => w.id),
        },
        'workflow loop stopped: event past the causation depth limit starts and resumes nothing',
      );
    } else if (ev.waiting.length) {
      await startAll(deps, starts).catch(keep);
      starts = [];
      for (const w of ev.waiting)
        await resume(deps, {
          executionId: w.id,
          stepId: w.step_id,
          outcome: 'EVENT',
          extra: { eventId: ev.id },
          eventDepth: ev.depth,
        }).catch(keep);
    }
    for (const w of ev.workflows) {
      starts.push({
        workflowId: w.id,
        projectId: ev.project_id,
        contactId: ev.contact_id!,
        allowReentry: w.allow_reentry,
        triggerEventId: ev.id,
        triggerData: ev.data,
        causationDepth: ev.depth,
        refuseWith: within ? undefined : CAUSATION_EXIT_REASON,
        now: deps.clock.now(),
      });
    }
  }
  await startAll(deps, starts).catch(keep);
  if (failed) throw failed;
}

/** The contacts of `starts` (id, address, language), read in the transaction that runs their steps (steps.run.ts SendPrefetch). */
async function contactsOf(tx: Tx, starts: StartInput[]): Promise<SendPrefetch['contacts']> {
  const ids = [...new Set(starts.map((s) => s.contactId))];
  const r = await executePrepared<{ id: string; email: string; locale: string | null }>(
    tx,
    sql`
    select id, email, data->>'locale' as locale from contacts where id = any(${uuidArray(ids)})`,
  );
  return new Map(r.rows.map((c) => [c.id, c]));
}

/** `emails:send-batch` job specs for `emailIds`, at most SEND_BATCH_SIZE a job, at the priority of mail someone waits for. */
function sendBatchSpecs(emailIds: string[]): SQL[] {
  const specs: SQL[] = [];
  for (let i = 0; i < emailIds.length; i += SEND_BATCH_SIZE) {
    specs.push(
      jobSpec(sendBatchJob, { emailIds: emailIds.slice(i, i + SEND_BATCH_SIZE) }, { priority: TRANSACTIONAL_PRIORITY }),
    );
  }
  return specs;
}

/**
 * Most other `workflows:dispatch` jobs one dispatch job takes over ({@link dispatchCoalesced}): with
 * theirs, at most 11 × DISPATCH_BATCH events in one run.
 */
export const COALESCE_JOBS = 10;

/** What {@link dispatchCoalesced} needs of the job it runs in. */
export interface DispatchJobRef {
  /** The Graphile task identifier of dispatch jobs (`workflows:dispatch`). */
  task: string;
  /** This job's id (it is locked by this run, so never taken over). */
  jobId: string;
  /** The event ids of a queued job's payload, or null when it does not parse (that job is left alone). */
  eventIds(payload: unknown): string[] | null;
}

/**
 * {@link dispatchEvents} for this job's events and those of up to {@link COALESCE_JOBS} other dispatch
 * jobs waiting in the queue, so that under a backlog (a burst of tracked events arrives as many small
 * jobs, one per group-committed `/v1/track` statement) each run starts more executions per
 * transaction and their mails leave in bigger batches. The other jobs are taken with
 * `SELECT … FOR UPDATE SKIP LOCKED` on their Graphile rows in a transaction of their own, held open
 * while the events are dispatched and committed with their deletion: no other worker can start them
 * meanwhile (Graphile's own fetch skips locked rows), and a failure or a crash rolls that transaction
 * back, which leaves them queued (dispatching an event twice repeats nothing, see
 * {@link dispatchEvents}); when the run fails, the jobs it took count it as an attempt (`attempts`
 * + 1, `last_error`), still runnable at once. Only jobs never attempted are taken, so a job whose
 * events cannot be dispatched fails once in another's run at most, then in runs of its own, with its
 * own retries and back-off. When it took some, it holds a second connection while it runs
 * (WORKER_DB_POOL_SIZE counts two a job); when the queue held none, that connection is released first.
 * @throws what {@link dispatchEvents} throws (the job is retried), or a database error.
 */
export async function dispatchCoalesced(deps: Deps, eventIds: string[], job: DispatchJobRef): Promise<void> {
  const client = await deps.pool.connect();
  let open = false;
  let released = false;
  try {
    await client.query('begin');
    open = true;
    const waiting = await lockWaitingJobs(client, job.task, job.jobId, COALESCE_JOBS);
    const taken: string[] = [];
    const all = [...eventIds];
    for (const row of waiting) {
      const ids = job.eventIds(row.payload);
      if (!ids) continue;
      taken.push(row.id);
      all.push(...ids);
    }
    if (!taken.length) {
      // No backlog (the usual case when the queue keeps up): the second connection goes back now.
      open = false;
      await client.query('commit');
      client.release();
      released = true;
      return await dispatchEvents(deps, all);
    }
    try {
      await dispatchEvents(deps, all);
    } catch (err) {
      open = false;
      await client.query('rollback');
      // The jobs taken over count this run as an attempt, so none is taken over again: one whose
      // events cannot be dispatched then fails in runs of its own, not in those of other jobs.
      await countFailedAttempt(
        client,
        taken,
        `Taken over by dispatch job ${job.jobId}, which failed: ${(err as Error)?.message ?? String(err)}`.slice(
          0,
          1000,
        ),
      );
      throw err;
    }
    await deleteJobs(client, taken);
    open = false;
    await client.query('commit');
  } finally {
    if (open) await client.query('rollback').catch(() => undefined);
    if (!released) client.release();
  }
}

/** {@link dispatchEvents} for one event (tests, and what a `{eventId}` job of an earlier release carries). */
export async function dispatchEvent(deps: Deps, eventId: string): Promise<void> {
  await dispatchEvents(deps, [eventId]);
}

/** Starts `starts` in order, with the steps each runs up to its first wait, in one transaction (see {@link dispatchEvents}). */
async function startAll(deps: Deps, starts: StartInput[]): Promise<void> {
  if (!starts.length) return;
  const chained = (input: StartInput, group?: SharedWrites) => async (tx: Tx) => {
    const started = await startExecution(tx, { ...input, queue: false });
    if (started?.at) await runChain(deps, tx, { at: started.at, group });
  };
  if (starts.length > 1) {
    try {
      await deps.db.transaction(async (tx) => {
        const group = sharedWrites({ contacts: await contactsOf(tx, starts), templates: new Map() });
        for (const input of starts) await chained(input, group)(tx);
        await flushShared(tx, { group, more: sendBatchSpecs(group.mails) });
      });
      return;
    } catch (err) {
      deps.log.warn(
        { executions: starts.length, err },
        'workflow starts run in one transaction failed: rolled back, each runs in its own',
      );
    }
  }
  let failed: unknown;
  for (const input of starts) {
    // The start and the steps up to the first wait in one transaction; alone, the start is one statement.
    // One that cannot be written at all does not stop the others; the job is retried for it.
    await chainedOrAlone(
      deps,
      { eventId: input.triggerEventId, workflowId: input.workflowId },
      () => deps.db.transaction(chained(input)),
      () => startExecution(deps.db, input).then(() => undefined),
    ).catch((err) => {
      failed ??= err;
    });
  }
  if (failed) throw failed;
}
