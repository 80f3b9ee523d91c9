import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { parseCrontab } from 'graphile-worker';
import { addJob } from './queue.js';
import { buildTaskList, crontabLines } from './tasks.js';

/** DESIGN.md "Jobs": Graphile Worker runs the tasks and the clean-up crontab. */
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
    await h.sql(`insert into idempotency_keys (project_id, key, method, path, expires_at) values ($1, 'stale', 'POST', '/v1/send', $2), ($1, 'kept', 'POST', '/v1/send', $2)`, [p.id, past]);
    await h.deps.db.transaction(async (tx) => {
      await addJob(tx, 'cleanup:idempotency-keys', {});
      // Roll back: the job must not exist.
      throw Object.assign(new Error('rollback'), { rollback: true });
    }).catch((e) => expect(e.rollback).toBe(true));
    await new Promise((r) => setTimeout(r, 1500));
    expect(await h.sql(`select key from idempotency_keys where project_id = $1 order by key`, [p.id])).toHaveLength(2);
    await h.deps.db.transaction(async (tx) => addJob(tx, 'cleanup:idempotency-keys', {}));
    const until = Date.now() + 10_000;
    while (Date.now() < until && (await h.sql(`select 1 from idempotency_keys where project_id = $1`, [p.id])).length) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await h.sql(`select key from idempotency_keys where project_id = $1`, [p.id])).toEqual([]);
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
    const lock = (key: string, worker: string, ago: string) => h.sql(
      `update graphile_worker._private_jobs set locked_by = $2, locked_at = now() - $3::interval where key = $1`, [key, worker, ago]);
    await lock('dead-one', 'worker-dead', '1 minute');
    await lock('live-one', 'worker-alive', '1 minute');
    // A lock taken a moment ago may belong to a worker still announcing itself: left alone.
    await lock('fresh-one', 'worker-new', '1 second');
    const alive = new LivenessLocks(h.deps.pool);
    await alive.hold('worker-alive');
    try {
      expect(await unlockDeadWorkers(h.deps.pool)).toEqual(['worker-dead']);
      const rows = await h.sql(`select key, locked_by from graphile_worker._private_jobs where key in ('dead-one', 'live-one', 'fresh-one') order by key`);
      expect(rows).toEqual([
        { key: 'dead-one', locked_by: null },
        { key: 'fresh-one', locked_by: 'worker-new' },
        { key: 'live-one', locked_by: 'worker-alive' },
      ]);
    } finally {
      await alive.release();
    }
    // Once its process is gone (lock released), the formerly live worker's job is taken back too.
    expect(await unlockDeadWorkers(h.deps.pool)).toEqual(['worker-alive']);
  });
});
