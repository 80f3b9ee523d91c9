import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { segmentSlug } from './segments.compute.js';
import { buildTaskList } from '../worker/tasks.js';
import { segmentsCrontab } from './segments.jobs.js';
import { addContact, one } from '../../test/segments-helpers.js';

const helpers = { logger: { info: () => undefined, warn: () => undefined } } as unknown as JobHelpers;

describe('tracked segments: compute, entry/exit events, cron', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  const segEvents = (p: string) =>
    h.sql<{ name: string; email: string; data: Record<string, string> }>(
      `select e.name, c.email, e.data from events e join contacts c on c.id = e.contact_id
       where e.project_id = $1 and e.name like 'segment.%' order by e.name, c.email`,
      [p],
    );

  it('slugs: lower-case letters, digits, _ and -, spaces to -; the fallback when nothing is left', () => {
    expect(segmentSlug('  VIP Customers!! ', 'id')).toBe('vip-customers');
    expect(segmentSlug('--Power   users -- 2024_Q1--', 'id')).toBe('power-users-2024_q1');
    expect(segmentSlug('Café Über', 'id')).toBe('café-über');
    expect(segmentSlug('!!!', 'the-id')).toBe('the-id');
  });

  it('emits each entry and exit exactly once across repeated computes', async () => {
    const { id: p, secretKey: key } = await createProject(h);
    const a = await addContact(h, p, 'a@x.test', { plan: 'pro' });
    await addContact(h, p, 'b@x.test', { plan: 'pro' });
    await addContact(h, p, 'c@x.test', { plan: 'free' });
    const s = await h.request('POST', '/segments', {
      key,
      body: { name: 'Pro Users!', condition: one('data.plan', 'equals', 'pro'), trackMembership: true },
    });
    const first = await h.request('POST', `/segments/${s.body.id}/compute`, { key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ entered: 2, exited: 0, memberCount: 2 });
    expect((await h.request('POST', `/segments/${s.body.id}/compute`, { key })).body).toMatchObject({
      entered: 0,
      exited: 0,
      memberCount: 2,
    });
    expect(await segEvents(p)).toEqual([
      { name: 'segment.pro-users.entry', email: 'a@x.test', data: { segmentId: s.body.id, segmentName: 'Pro Users!' } },
      { name: 'segment.pro-users.entry', email: 'b@x.test', data: { segmentId: s.body.id, segmentName: 'Pro Users!' } },
    ]);
    await h.sql(`update contacts set data = '{"plan":"free"}' where id = $1`, [a]);
    await h.sql(`update contacts set data = '{"plan":"pro"}' where email = 'c@x.test' and project_id = $1`, [p]);
    expect((await h.request('POST', `/segments/${s.body.id}/compute`, { key })).body).toMatchObject({
      entered: 1,
      exited: 1,
      memberCount: 2,
    });
    expect((await h.request('POST', `/segments/${s.body.id}/compute`, { key })).body).toMatchObject({
      entered: 0,
      exited: 0,
      memberCount: 2,
    });
    expect((await segEvents(p)).map((e) => `${e.name} ${e.email}`)).toEqual([
      'segment.pro-users.entry a@x.test',
      'segment.pro-users.entry b@x.test',
      'segment.pro-users.entry c@x.test',
      'segment.pro-users.exit a@x.test',
    ]);
    const members = await h.sql(
      'select c.email from segment_members sm join contacts c on c.id = sm.contact_id where sm.segment_id = $1 order by 1',
      [s.body.id],
    );
    expect(members.map((r) => r.email)).toEqual(['b@x.test', 'c@x.test']);
    const ids = await h.sql(`select id::text from events where project_id = $1 and name like 'segment.%'`, [p]);
    for (const r of ids) expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('racing computes still emit each change once (the segment row is locked)', async () => {
    const { id: p, secretKey: key } = await createProject(h);
    for (let i = 0; i < 50; i++) await addContact(h, p, `r${i}@x.test`, { n: i });
    const s = await h.request('POST', '/segments', {
      key,
      body: { name: 'Race', condition: one('data.n', 'lessThan', 30), trackMembership: true },
    });
    const results = await Promise.all(
      Array.from({ length: 4 }, () => h.request('POST', `/segments/${s.body.id}/compute`, { key })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(results.reduce((n, r) => n + r.body.entered, 0)).toBe(30);
    expect(
      await h.sql(
        `select count(*)::int as n, count(distinct contact_id)::int as d from events where project_id = $1 and name = 'segment.race.entry'`,
        [p],
      ),
    ).toEqual([{ n: 30, d: 30 }]);
  });

  it('compute on an untracked segment is 400; tracking off forgets members; a deleted contact just leaves', async () => {
    const { id: p, secretKey: key } = await createProject(h);
    const a = await addContact(h, p, 'a@x.test', { plan: 'pro' });
    const s = await h.request('POST', '/segments', {
      key,
      body: { name: 'T', condition: one('data.plan', 'equals', 'pro') },
    });
    expect((await h.request('POST', `/segments/${s.body.id}/compute`, { key })).status).toBe(400);
    await h.request('PATCH', `/segments/${s.body.id}`, { key, body: { trackMembership: true } });
    expect((await h.request('POST', `/segments/${s.body.id}/compute`, { key })).body.entered).toBe(1);
    await h.request('PATCH', `/segments/${s.body.id}`, { key, body: { trackMembership: false } });
    expect(await h.sql('select count(*)::int as n from segment_members where segment_id = $1', [s.body.id])).toEqual([
      { n: 0 },
    ]);
    await h.request('PATCH', `/segments/${s.body.id}`, { key, body: { trackMembership: true } });
    await h.request('POST', `/segments/${s.body.id}/compute`, { key });
    await h.sql('delete from contacts where id = $1', [a]);
    expect((await h.request('POST', `/segments/${s.body.id}/compute`, { key })).body).toMatchObject({
      entered: 0,
      exited: 0,
      memberCount: 0,
    });
  });

  it('the 5-minute cron queues a compute per dynamic segment; the job computes tracked ones and recounts the rest', async () => {
    expect(segmentsCrontab).toEqual(['*/5 * * * * segments:compute-tracked']);
    const { id: p, secretKey: key } = await createProject(h);
    await addContact(h, p, 'a@x.test', { plan: 'pro' });
    const tracked = await h.request('POST', '/segments', {
      key,
      body: { name: 'Tracked', condition: one('data.plan', 'equals', 'pro'), trackMembership: true },
    });
    const counted = await h.request('POST', '/segments', {
      key,
      body: { name: 'Counted', condition: one('data.plan', 'exists') },
    });
    await addContact(h, p, 'b@x.test', { plan: 'pro' });
    const tasks = buildTaskList(h.deps);
    await tasks['segments:compute-tracked']({}, helpers);
    await tasks['segments:compute-tracked']({}, helpers); // a second tick replaces, does not add
    const jobs = await h.sql(
      `select j.payload->>'segmentId' as id from ${JOBS} j
      where j.task_identifier = 'segments:compute' and j.payload->>'segmentId' in ($1, $2)`,
      [tracked.body.id, counted.body.id],
    );
    expect(jobs.map((j) => j.id).sort()).toEqual([tracked.body.id, counted.body.id].sort());
    for (const j of jobs) await tasks['segments:compute']({ segmentId: j.id }, helpers);
    expect((await h.request('GET', `/segments/${tracked.body.id}`, { key })).body.memberCount).toBe(2);
    expect((await h.request('GET', `/segments/${counted.body.id}`, { key })).body.memberCount).toBe(2);
    expect((await segEvents(p)).map((e) => `${e.name} ${e.email}`)).toEqual([
      'segment.tracked.entry a@x.test',
      'segment.tracked.entry b@x.test',
    ]);
    await tasks['segments:compute']({ segmentId: tracked.body.id }, helpers);
    expect(await segEvents(p)).toHaveLength(2);
  });

  it('entry/exit events queue a workflows:dispatch job when an enabled workflow is triggered by them', async () => {
    const { id: p, secretKey: key } = await createProject(h);
    const a = await addContact(h, p, 'a@x.test', { plan: 'pro' });
    await addContact(h, p, 'b@x.test', { plan: 'pro' });
    await h.sql(
      `insert into workflows (id, project_id, name, trigger_type, trigger_config, enabled)
      values (gen_random_uuid(), $1, 'w', 'EVENT', '{"eventName":"segment.vip-list.entry"}', true)`,
      [p],
    );
    const s = await h.request('POST', '/segments', {
      key,
      body: { name: 'VIP list', condition: one('data.plan', 'equals', 'pro'), trackMembership: true },
    });
    expect((await h.request('POST', `/segments/${s.body.id}/compute`, { key })).body.entered).toBe(2);
    await h.sql(`update contacts set data = '{}' where id = $1`, [a]);
    expect((await h.request('POST', `/segments/${s.body.id}/compute`, { key })).body.exited).toBe(1);
    const jobs = await h.sql(
      `select j.id, e.name from ${JOBS} j
      cross join lateral json_array_elements_text((j.payload::json)->'eventIds') x(id)
      join events e on e.id = x.id::uuid where j.task_identifier = 'workflows:dispatch' and e.project_id = $1 order by 2`,
      [p],
    );
    // Only the entries have a listener; the exit event is recorded but queues nothing. The compute's
    // events share one dispatch job.
    expect(jobs.map((j) => j.name)).toEqual(['segment.vip-list.entry', 'segment.vip-list.entry']);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(1);
    expect((await segEvents(p)).map((e) => e.name)).toEqual([
      'segment.vip-list.entry',
      'segment.vip-list.entry',
      'segment.vip-list.exit',
    ]);
  });
});

/** The worker's computes have a statement timeout (finding 12 of "Hardening II"). */
describe('SEGMENT_COMPUTE_TIMEOUT_MS', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { SEGMENT_COMPUTE_TIMEOUT_MS: '1' } });
  });
  afterAll(async () => h.close());

  it('stops a compute that runs past it, records why on the segment, and does not retry', async () => {
    const { id: p, secretKey: key } = await createProject(h);
    const seg = await h.request('POST', '/segments', {
      key,
      body: { name: 'Slow', condition: one('data.plan', 'equals', 'pro'), trackMembership: true },
    });
    expect(seg.status).toBe(201);
    // Enough contacts that no statement of the compute ends within a millisecond.
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed, data)
      select gen_random_uuid(), $1, 'c' || i || '@x.test', true, jsonb_build_object('plan', 'pro', 'n', i) from generate_series(1, 100000) i`,
      [p],
    );
    const errors: string[] = [];
    const log = {
      logger: { info: () => undefined, warn: () => undefined, error: (m: string) => errors.push(m) },
    } as unknown as JobHelpers;
    await buildTaskList(h.deps)['segments:compute']({ segmentId: seg.body.id }, log); // resolves: no retry
    expect(errors).toEqual([expect.stringMatching(/not computed: stopped after 0\.001 s/)]);
    const after = (await h.request('GET', `/segments/${seg.body.id}`, { key })).body;
    expect(after.computeError).toMatch(/took longer than 0\.001 s \(SEGMENT_COMPUTE_TIMEOUT_MS\)/);
    expect(await h.sql('select count(*)::int as n from segment_members where segment_id = $1', [seg.body.id])).toEqual([
      { n: 0 },
    ]);
  }, 60_000);
});
