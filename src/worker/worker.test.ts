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
