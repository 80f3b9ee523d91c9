import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';
import { addContact, one } from '../../test/segments-helpers.js';
import { computeSegment } from '../segments/segments.compute.js';
import { dispatchEvents } from './dispatch.js';
import { runPendingTicks, runSchedules } from './schedule.run.js';

// Triggers beyond an event: segment entry/exit and cron schedules. No worker: the test runs the
// dispatch of the segment events and the schedule job itself, so nothing waits on a timer.
describe('workflow triggers: segment entered/exited, schedule, project time zone', () => {
  let h: Harness;
  let p: TestProject;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
  });
  afterAll(async () => h?.close());

  const req = (method: string, path: string, body?: unknown, key = p.secretKey) =>
    h.request(method, path, { key, body });
  const segment = async (name: string, condition: unknown, trackMembership = true, key = p.secretKey) => {
    const res = await req('POST', '/segments', { name, condition, trackMembership }, key);
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const fieldError = (res: { body: Json }) => [res.body.error.errors[0].field, res.body.error.errors[0].code];
  const executions = (workflowId: string) =>
    h.sql<{ contact_id: string; trigger_data: Json }>(
      'select contact_id, trigger_data from workflow_executions where workflow_id = $1 order by id',
      [workflowId],
    );

  it('refuses what a trigger cannot use, with the field and how to fix it', async () => {
    const untracked = await segment('Untracked', one('data.plan', 'equals', 'pro'), false);
    const other = await createProject(h);
    const foreign = await segment('Theirs', one('data.plan', 'equals', 'pro'), true, other.secretKey);
    const create = (triggerType: string, triggerConfig: unknown) =>
      req('POST', '/workflows', { name: 'W', triggerType, triggerConfig });

    const notTracked = await create('SEGMENT_ENTERED', { segmentId: untracked });
    expect(notTracked.status).toBe(422);
    expect(fieldError(notTracked)).toEqual(['triggerConfig.segmentId', 'segment_not_tracked']);
    expect(notTracked.body.error.message).toContain('trackMembership');
    for (const segmentId of [foreign, 'nope', undefined]) {
      const res = await create('SEGMENT_EXITED', { segmentId });
      expect(res.status).toBe(422);
      expect(res.body.error.errors[0].field).toBe('triggerConfig.segmentId');
    }
    expect(fieldError(await create('SCHEDULE', { cron: '61 9 * * *' }))).toEqual([
      'triggerConfig.cron',
      'invalid_cron',
    ]);
    expect(fieldError(await create('SCHEDULE', { cron: '0 0 9 * * 1' }))).toEqual([
      'triggerConfig.cron',
      'invalid_cron',
    ]);
    expect((await create('SCHEDULE', { cron: '0 9 * * 1', segmentId: foreign })).status).toBe(422);
    // The old body still works, and still names its field.
    expect(fieldError(await req('POST', '/workflows', { name: 'No event' }))[0]).toBe('eventName');
    const preview = await req('GET', `/workflows/schedule-preview?cron=${encodeURIComponent('0 9 * 13 *')}`);
    expect(fieldError(preview)).toEqual(['cron', 'invalid_cron']);
  });

  it('the project time zone: set with Intl names only, read by the schedule', async () => {
    const patch = (timeZone: unknown) =>
      h.request('PATCH', `/users/@me/projects/${p.id}`, { cookie: p.owner.cookie, body: { timeZone } });
    for (const bad of ['Mars/Olympus', '+02:00', ''])
      expect((await patch(bad)).body.error.errors[0].field, bad).toBe('timeZone');
    const ok = await patch('europe/paris');
    expect(ok.status).toBe(200);
    expect(ok.body.timeZone).toBe('Europe/Paris');
    h.clock.set(new Date('2026-11-29T12:00:00Z'));
    const preview = await req('GET', `/workflows/schedule-preview?cron=${encodeURIComponent('0  9 * * 1')}`);
    expect(preview.body).toEqual({
      cron: '0 9 * * 1',
      description: 'Every Monday at 09:00 (Europe/Paris)',
      timeZone: 'Europe/Paris',
      nextRunAt: '2026-11-30T08:00:00.000Z',
      nextRuns: ['2026-11-30T08:00:00.000Z', '2026-12-07T08:00:00.000Z', '2026-12-14T08:00:00.000Z'],
    });
  });

  it('a segment-entry trigger fires once per entry: enter, exit, enter again = two executions', async () => {
    const a = await addContact(h, p.id, 'seg-a@x.test', { plan: 'pro' });
    await addContact(h, p.id, 'seg-b@x.test', { plan: 'free' });
    const seg = await segment('Pro', one('data.plan', 'equals', 'pro'));
    const make = async (triggerType: string) => {
      const res = await req('POST', '/workflows', {
        name: triggerType,
        triggerType,
        triggerConfig: { segmentId: seg },
        allowReentry: true,
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ triggerType, triggerConfig: { segmentId: seg }, schedule: null });
      expect((await req('PATCH', `/workflows/${res.body.id}`, { enabled: true })).status).toBe(200);
      return res.body.id as string;
    };
    const entered = await make('SEGMENT_ENTERED');
    const exited = await make('SEGMENT_EXITED');
    // Renamed after the triggers were made: they name the segment by id.
    expect((await req('PATCH', `/segments/${seg}`, { name: 'Paying customers' })).status).toBe(200);

    let seen = new Set<string>();
    const computeAndDispatch = async (plan: string) => {
      await h.sql(`update contacts set data = jsonb_build_object('plan', $2::text) where id = $1`, [a, plan]);
      await computeSegment(h.deps, p.id, seg);
      const events = await h.sql<{ id: string }>(
        "select id from events where project_id = $1 and name like 'segment.%' order by id",
        [p.id],
      );
      const fresh = events.map((e) => e.id).filter((id) => !seen.has(id));
      seen = new Set(events.map((e) => e.id));
      await dispatchEvents(h.deps, fresh);
      // A repeated dispatch (a retried job) starts nothing more.
      await dispatchEvents(h.deps, fresh);
    };
    await computeAndDispatch('pro');
    await computeAndDispatch('free');
    await computeAndDispatch('pro');
    const inEntered = await executions(entered);
    expect(inEntered.map((x) => x.contact_id)).toEqual([a, a]);
    expect(inEntered[0].trigger_data).toMatchObject({ segmentId: seg });
    expect((await executions(exited)).map((x) => x.contact_id)).toEqual([a]);
  });

  it('a cron trigger starts every contact of its segment once per tick, even with two workers at once', async () => {
    const q = await createProject(h);
    const patched = await h.request('PATCH', `/users/@me/projects/${q.id}`, {
      cookie: q.owner.cookie,
      body: { timeZone: 'Europe/Paris' },
    });
    expect(patched.status).toBe(200);
    const ids = [];
    for (const n of [1, 2, 3]) ids.push(await addContact(h, q.id, `cron-${n}@x.test`, { plan: 'pro' }));
    await addContact(h, q.id, 'cron-free@x.test', { plan: 'free' });
    // Another project's contacts are never started.
    await addContact(h, p.id, 'cron-other@x.test', { plan: 'pro' });
    const seg = await segment('Pro', one('data.plan', 'equals', 'pro'), false, q.secretKey);
    h.clock.set(new Date('2026-11-29T07:30:00Z'));
    const wf = await h.request('POST', '/workflows', {
      key: q.secretKey,
      body: {
        name: 'Daily',
        triggerType: 'SCHEDULE',
        triggerConfig: { cron: '0 9 * * *', segmentId: seg },
        allowReentry: true,
      },
    });
    expect(wf.status, wf.text).toBe(201);
    expect(wf.body.schedule).toEqual({
      description: 'Every day at 09:00 (Europe/Paris)',
      timeZone: 'Europe/Paris',
      nextRunAt: '2026-11-29T08:00:00.000Z',
    });
    const enabled = await h.request('PATCH', `/workflows/${wf.body.id}`, { key: q.secretKey, body: { enabled: true } });
    expect(enabled.status).toBe(200);

    // Before 09:00 Paris nothing is due.
    h.clock.set(new Date('2026-11-29T07:59:00Z'));
    expect(await runSchedules(h.deps)).toBe(0);
    // At the tick, two runs at once (two workers): each contact once.
    h.clock.set(new Date('2026-11-29T08:00:20Z'));
    const [x, y] = await Promise.all([runSchedules(h.deps), runSchedules(h.deps)]);
    expect(x + y).toBe(3);
    expect((await executions(wf.body.id)).map((e) => e.contact_id).sort()).toEqual([...ids].sort());
    // Later runs within the same tick start nobody again.
    h.clock.set(new Date('2026-11-29T08:05:00Z'));
    expect(await runSchedules(h.deps)).toBe(0);
    // The next day's tick: everyone once more.
    h.clock.set(new Date('2026-11-30T08:00:05Z'));
    await Promise.all([runSchedules(h.deps), runSchedules(h.deps)]);
    const all = await executions(wf.body.id);
    expect(all).toHaveLength(6);
    expect(new Set(all.map((e) => e.trigger_data.tickAt))).toEqual(
      new Set(['2026-11-29T08:00:00.000Z', '2026-11-30T08:00:00.000Z']),
    );
    expect(
      await h.sql('select status, started from workflow_schedule_ticks where workflow_id = $1', [wf.body.id]),
    ).toEqual([
      { status: 'DONE', started: 3 },
      { status: 'DONE', started: 3 },
    ]);

    // A tick stopped by a crash after its first batch resumes after that batch's last contact.
    const sorted = [...ids].sort();
    await h.sql(
      `insert into workflow_schedule_ticks (id, workflow_id, project_id, tick_at, after_contact_id)
       values (gen_random_uuid(), $1, $2, '2026-11-30T09:00:00Z', $3)`,
      [wf.body.id, q.id, sorted[1]],
    );
    expect(await runPendingTicks(h.deps)).toBe(1);
    const resumed = await h.sql(
      "select contact_id from workflow_executions where workflow_id = $1 and trigger_data->>'tickAt' = '2026-11-30T09:00:00.000Z'",
      [wf.body.id],
    );
    expect(resumed).toEqual([{ contact_id: sorted[2] }]);
  });
});
