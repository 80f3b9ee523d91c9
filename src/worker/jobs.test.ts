import { Logger, runOnce } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { eventually } from '../../test/sending-fixtures.js';
import { newId } from '../lib/ids.js';
import { sql } from 'drizzle-orm';
import { addJobsSelect, jobSpecRow } from './graphile.js';
import { defineJob, enqueue } from './jobs.js';
import { taskListOf } from './tasks.js';

/** Typed job definitions: payloads checked when queued and when run, defaults applied. */
describe('job definitions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  const ran: string[] = [];
  const probeJob = defineJob({
    name: 'test:probe',
    payload: z.object({ thingId: z.guid() }),
    maxAttempts: 3,
    run: async (_deps, { thingId }) => void ran.push(thingId),
  });

  const jobCount = async () => (await h.sql<{ n: number }>(`select count(*)::int as n from ${JOBS} j`))[0].n;
  const rowsOf = (task: string) =>
    h.sql(`select j.payload, j.max_attempts, j.attempts from ${JOBS} j where j.task_identifier = $1 order by j.id`, [
      task,
    ]);

  it('refuses a payload that does not match the schema, before anything is written', async () => {
    const before = await jobCount();
    await expect(enqueue(h.deps.db, probeJob, { thingId: 'not-an-id' })).rejects.toThrow(/test:probe.*thingId/);
    await expect(h.deps.db.transaction((tx) => enqueue(tx, probeJob, {} as never))).rejects.toThrow(/test:probe/);
    expect(await jobCount()).toBe(before);
  });

  it("applies the definition's maxAttempts unless the caller gives its own", async () => {
    const [a, b] = [newId(), newId()];
    await enqueue(h.deps.db, probeJob, { thingId: a });
    await enqueue(h.deps.db, probeJob, { thingId: b }, { maxAttempts: 7 });
    expect(await rowsOf(probeJob.name)).toEqual([
      { payload: { thingId: a }, max_attempts: 3, attempts: 0 },
      { payload: { thingId: b }, max_attempts: 7, attempts: 0 },
    ]);
  });

  it('adds the jobs of a set in one statement, and calls Graphile not at all for an empty set', async () => {
    const ids = [newId(), newId(), newId()];
    const specs = (
      list: string[],
    ) => sql`select ${jobSpecRow(probeJob, sql`json_build_object('thingId', t.id)`, { priority: -1 })}
      from unnest(${`{${list.join(',')}}`}::text[]) as t(id)`;
    const listener = await h.deps.pool.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query('listen "jobs:insert"; listen "test:sentinel"');
    // PostgreSQL delivers the notifications of a listener in the order their transactions committed:
    // once this later one has arrived, any that the statements before it sent have arrived too.
    const sentinel = async () => {
      const n = heard.length;
      await h.sql(`notify "test:sentinel"`);
      await eventually(async () => heard.slice(n).includes('test:sentinel'), 10_000, 'the sentinel notification');
    };
    try {
      const none = await h.deps.db.execute(addJobsSelect(specs([])));
      expect(none.rows).toEqual([]);
      await sentinel();
      expect(heard).toEqual(['test:sentinel']);
      const before = (await rowsOf(probeJob.name)).length;
      const added = await h.deps.db.execute(addJobsSelect(specs(ids)));
      expect(added.rows).toHaveLength(3);
      const rows = (await rowsOf(probeJob.name)).slice(before);
      expect(rows.map((r) => (r.payload as { thingId: string }).thingId).sort()).toEqual([...ids].sort());
      expect(rows.every((r) => r.max_attempts === 3)).toBe(true);
      expect(
        (
          await h.sql(
            `select count(*)::int as n from ${JOBS} j where priority = -1 and payload->>'thingId' = any($1)`,
            [ids],
          )
        )[0].n,
      ).toBe(3);
      await sentinel();
      expect(heard).toEqual(['test:sentinel', 'jobs:insert', 'test:sentinel']);
    } finally {
      await listener.query('unlisten *');
      listener.release();
    }
  });

  it('logs and completes a job whose stored payload is invalid, without running it or retrying it', async () => {
    const guarded: string[] = [];
    const guardedJob = defineJob({
      name: 'test:guarded',
      payload: z.object({ thingId: z.guid() }),
      run: async (_deps, { thingId }) => void guarded.push(thingId),
    });
    const valid = newId();
    await h.sql(`select graphile_worker.add_job('test:guarded', '{"thingId": "nope"}'::json, max_attempts => 5)`);
    await enqueue(h.deps.db, guardedJob, { thingId: valid });
    const errors: string[] = [];
    const logger = new Logger(() => (level, message) => {
      if (level === 'error') errors.push(message);
    });
    await runOnce({ pgPool: h.deps.pool, taskList: taskListOf([guardedJob], h.deps), logger, noHandleSignals: true });
    expect(guarded).toEqual([valid]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^test:guarded: invalid payload.*thingId.*: \{"thingId":"nope"\}$/);
    // Completed (Graphile deletes completed jobs), not kept for another attempt. Graphile 0.17's
    // worker does not await a job's completion before runOnce resolves (worker.js calls
    // `completeJob(job)` without waiting), so the deletion may land a moment later on a busy machine.
    await eventually(
      async () => (await rowsOf(guardedJob.name)).length === 0 || undefined,
      10_000,
      'both jobs deleted',
    );
  });
});
