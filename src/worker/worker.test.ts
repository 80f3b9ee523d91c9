import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { JOBS, backdateLock } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { eventually } from '../../test/sending-fixtures.js';
import { parseCrontab } from 'graphile-worker';
import { enqueue } from './jobs.js';
import { buildTaskList, cleanupIdempotencyKeysJob, crontabLines } from './tasks.js';

/** Graphile Worker runs the tasks and the clean-up crontab. */
describe('job runner', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(() => h.close());

  it('has the hourly idempotency clean-up in its crontab', () => {
    const items = parseCrontab(crontabLines.join('\n'));
    const cleanup = items.find((i) => i.task === 'cleanup:idempotency-keys');
    expect(cleanup).toBeDefined();
    expect(cleanup!.match).toBeDefined();
    expect(Object.keys(buildTaskList(h.deps))).toContain('cleanup:idempotency-keys');
  });

  it('runs a job added in a transaction after it commits, and never one that rolled back', async () => {
    const p = await createProject(h);
    const past = new Date(Date.now() - 3600_000);
    await h.sql(
      `insert into idempotency_keys (project_id, key, method, path, expires_at) values ($1, 'stale', 'POST', '/v1/send', $2), ($1, 'kept', 'POST', '/v1/send', $2)`,
      [p.id, past],
    );
    // The clean-up jobs this worker starts (not the hourly crontab's).
    const cleanupJobs = () =>
      h.sql(
        `select j.id from ${JOBS} j
      where j.task_identifier = $1 and not coalesce(j.payload::jsonb ? '_cron', false)`,
        [cleanupIdempotencyKeysJob.name],
      );
    const started: string[] = [];
    const onStart = ({ job }: { job: { id: string; task_identifier: string; payload: unknown } }) => {
      if (job.task_identifier === cleanupIdempotencyKeysJob.name && !(job.payload as { _cron?: unknown } | null)?._cron)
        started.push(job.id);
    };
    h.worker!.runner.events.on('job:start', onStart);
    try {
      await h.deps.db
        .transaction(async (tx) => {
          await enqueue(tx, cleanupIdempotencyKeysJob, {});
          // Roll back: the job must not exist.
          throw Object.assign(new Error('rollback'), { rollback: true });
        })
        .catch((e) => expect(e.rollback).toBe(true));
      // A job that existed would be queued (its row), running (its row, locked) or done (the keys gone).
      expect(await cleanupJobs()).toEqual([]);
      expect(await h.sql(`select key from idempotency_keys where project_id = $1 order by key`, [p.id])).toHaveLength(
        2,
      );
      await h.deps.db.transaction(async (tx) => enqueue(tx, cleanupIdempotencyKeysJob, {}));
      // Done once no clean-up job is left: every one ever queued, the committed one and any other, has
      // been started by then, and the worker started one.
      await eventually(
        async () =>
          !(await h.sql(`select 1 from idempotency_keys where project_id = $1`, [p.id])).length &&
          !(await cleanupJobs()).length,
        10_000,
        'the committed clean-up job done',
      );
      expect(started).toHaveLength(1);
    } finally {
      h.worker!.runner.events.off('job:start', onStart);
    }
    expect(await h.sql(`select key from idempotency_keys where project_id = $1`, [p.id])).toEqual([]);
  });

  it('holds the liveness lock of the id it locks jobs with, so a sweep never takes a running job away', async () => {
    const { unlockDeadWorkers } = await import('./liveness.js');
    const p = await createProject(h);
    await h.sql(
      `insert into idempotency_keys (project_id, key, method, path, expires_at) values ($1, 'held', 'POST', '/v1/send', $2)`,
      [p.id, new Date(Date.now() - 3600_000)],
    );
    // The clean-up job waits on this row lock while it runs, so that its job lock can be looked at.
    const blocker = await h.deps.pool.connect();
    const lockedBy = async () => (await h.sql(`select locked_by from ${JOBS} j where key = 'held-run'`))[0]?.locked_by;
    try {
      await blocker.query('begin');
      await blocker.query(`select 1 from idempotency_keys where project_id = $1 and key = 'held' for update`, [p.id]);
      await h.sql(`select graphile_worker.add_job('cleanup:idempotency-keys', '{}'::json, job_key => 'held-run')`);
      await expect.poll(lockedBy, { timeout: 10_000 }).toBeTruthy();
      // As if it had been running for a minute: its process is alive, so the job stays its own.
      await backdateLock(h, 'held-run', '1 minute');
      expect(await unlockDeadWorkers(h.deps.pool)).toEqual([]);
      expect(await lockedBy()).toBeTruthy();
    } finally {
      await blocker.query('rollback');
      blocker.release();
    }
  });
});

describe('jobs of dead workers', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('unlocks the jobs of a worker whose process is gone, and only those', async () => {
    const { LivenessLocks, unlockDeadWorkers } = await import('./liveness.js');
    await h.sql(`select graphile_worker.add_job('cleanup:idempotency-keys', '{}'::json, job_key => 'dead-one')`);
    await h.sql(`select graphile_worker.add_job('cleanup:idempotency-keys', '{}'::json, job_key => 'live-one')`);
    await h.sql(`select graphile_worker.add_job('cleanup:idempotency-keys', '{}'::json, job_key => 'fresh-one')`);
    const lock = (key: string, worker: string, ago: string) => backdateLock(h, key, ago, worker);
    await lock('dead-one', 'worker-dead', '1 minute');
    await lock('live-one', 'worker-alive', '1 minute');
    // A lock taken a moment ago may belong to a worker still announcing itself: left alone.
    await lock('fresh-one', 'worker-new', '1 second');
    const alive = new LivenessLocks(h.deps.pool);
    await alive.hold('worker-alive');
    try {
      expect(await unlockDeadWorkers(h.deps.pool)).toEqual(['worker-dead']);
      const rows = await h.sql(
        `select key, locked_by from ${JOBS} j where key in ('dead-one', 'live-one', 'fresh-one') order by key`,
      );
      expect(rows).toEqual([
        { key: 'dead-one', locked_by: null },
        { key: 'fresh-one', locked_by: 'worker-new' },
        { key: 'live-one', locked_by: 'worker-alive' },
      ]);
    } finally {
      await alive.release();
    }
    // Once its process is gone (lock released), the formerly live worker's job is taken back too. Its
    // connection is closed, and the server drops the lock when that backend has exited, a moment later:
    // a look before that finds it held and changes nothing.
    await expect
      .poll(() => unlockDeadWorkers(h.deps.pool), { timeout: 10_000, interval: 50 })
      .toEqual(['worker-alive']);
  });

  it('takes its liveness locks back after losing the connection, holding back new jobs meanwhile', async () => {
    const { LivenessLocks, unlockDeadWorkers } = await import('./liveness.js');
    const lost: Error[] = [];
    const alive = new LivenessLocks(h.deps.pool, (err) => lost.push(err));
    const holder = async () =>
      (
        await h.sql<{ pid: number }>(`select pid from pg_locks
      where locktype = 'advisory' and classid = x'70776b72'::int and objid = hashtext('worker-cut')::oid and granted`)
      )[0]?.pid;
    const waiter = async () =>
      (
        await h.sql<{ pid: number }>(`select pid from pg_locks
      where locktype = 'advisory' and classid = x'70776b72'::int and objid = hashtext('worker-cut')::oid and not granted`)
      )[0]?.pid;
    await alive.hold('worker-cut');
    try {
      const first = await holder();
      expect(first).toBeTypeOf('number');
      expect(alive.held).toBe(true);
      // The database ends the lock's connection (a restart, a network cut): the locks are gone, and
      // here another session takes the lock first, so that taking it back has to wait.
      const other = await h.deps.pool.connect();
      try {
        await other.query(
          `select pg_terminate_backend($1), pg_advisory_lock(x'70776b72'::int, hashtext('worker-cut'))`,
          [first],
        );
        await expect.poll(() => lost.length, { timeout: 5000 }).toBe(1);
        expect(alive.held).toBe(false);
        const order: string[] = [];
        const gate = alive.whenHeld().then(() => order.push('released'));
        // Being taken back: a new session of this process waits for the lock the other one holds.
        await expect.poll(waiter, { timeout: 10_000 }).toBeTypeOf('number');
        order.push('unlock');
        await other.query(`select pg_advisory_unlock(x'70776b72'::int, hashtext('worker-cut'))`);
        // Taken back on a new connection; new jobs go ahead once it is, and not before.
        await gate;
        expect(order).toEqual(['unlock', 'released']);
      } finally {
        other.release();
      }
      expect(alive.held).toBe(true);
      const second = await holder();
      expect(second).toBeTypeOf('number');
      expect(second).not.toBe(first);
      // Held again: a sweep of another process leaves its jobs alone.
      expect(await unlockDeadWorkers(h.deps.pool)).not.toContain('worker-cut');
    } finally {
      await alive.release();
    }
  });
});
