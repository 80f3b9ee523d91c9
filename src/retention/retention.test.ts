import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { applyRetentionJob } from './retention.jobs.js';
import { RETENTION_BATCH } from './retention.js';

/** Per-project data retention (issue 39), applied by the nightly job at the (test) clock's time. */
describe('data retention', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  const helpers = { logger: { info() {}, error() {} } } as unknown as JobHelpers;
  const DAY = 24 * 60 * 60 * 1000;

  it('is set on the project update route (1–3650 days or null) and shown in the project list', async () => {
    const p = await createProject(h);
    const path = `/users/@me/projects/${p.id}`;
    const res = await h.request('PATCH', path, {
      cookie: p.owner.cookie,
      body: { retention: { eventsDays: 30, emailsDays: 365 } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.retention).toEqual({ eventsDays: 30, emailContentsDays: null, emailsDays: 365 });
    const more = await h.request('PATCH', path, {
      cookie: p.owner.cookie,
      body: { retention: { emailContentsDays: 90, emailsDays: null } },
    });
    expect(more.body.retention).toEqual({ eventsDays: 30, emailContentsDays: 90, emailsDays: null });
    for (const bad of [{ eventsDays: 0 }, { eventsDays: 3651 }, { eventsDays: 1.5 }, { other: 3 }]) {
      expect((await h.request('PATCH', path, { cookie: p.owner.cookie, body: { retention: bad } })).status).toBe(422);
    }
    const list = await h.request('GET', '/users/@me/projects', { cookie: p.owner.cookie });
    expect(list.body.find((x: { id: string }) => x.id === p.id).retention).toEqual({
      eventsDays: 30,
      emailContentsDays: 90,
      emailsDays: null,
    });
    expect(await h.sql(`select retention from projects where id = $1`, [p.id])).toEqual([
      { retention: { eventsDays: 30, emailContentsDays: 90 } },
    ]);
  });

  it('deletes old events, blanks old contents, deletes old emails, in batches, and leaves the rest', async () => {
    const p = await createProject(h);
    const keep = await createProject(h);
    await h.request('PATCH', `/users/@me/projects/${p.id}`, {
      cookie: p.owner.cookie,
      body: { retention: { eventsDays: 10, emailContentsDays: 20, emailsDays: 40 } },
    });
    const now = h.clock.now();
    const ago = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
    for (const proj of [p, keep]) {
      await h.sql(
        `insert into events (id, project_id, name, data, created_at)
         select gen_random_uuid(), $1, 'old', '{}', $2::timestamptz from generate_series(1, $3)`,
        [proj.id, ago(11), RETENTION_BATCH + 200],
      );
      await h.sql(
        `insert into events (id, project_id, name, data, created_at) values (gen_random_uuid(), $1, 'new', '{}', $2)`,
        [proj.id, ago(9)],
      );
      await h.sql(
        `insert into emails (id, project_id, to_email, from_email, subject, body, source_type, status, created_at, updated_at, variables)
         select gen_random_uuid(), $1, 'r' || d || '@example.test', 'a@example.test', 'S ' || d, 'B ' || d, 'TRANSACTIONAL',
           'DELIVERED', now() - make_interval(days => d), now(), '{"v": 1}'
         from unnest(array[5, 25, 45]) d`,
        [proj.id],
      );
    }
    // Nothing happens before the clock says so: the rows are younger than the periods a day earlier.
    h.clock.advance(-2 * DAY);
    await applyRetentionJob.run(h.deps, {}, helpers);
    expect(await h.sql(`select count(*)::int as n from events where project_id = $1`, [p.id])).toEqual([
      { n: RETENTION_BATCH + 201 },
    ]);
    h.clock.advance(2 * DAY);

    await applyRetentionJob.run(h.deps, {}, helpers);
    expect(await h.sql(`select name from events where project_id = $1`, [p.id])).toEqual([{ name: 'new' }]);
    expect(
      await h.sql(
        `select to_email, subject, body, variables from emails where project_id = $1 order by created_at desc`,
        [p.id],
      ),
    ).toEqual([
      { to_email: 'r5@example.test', subject: 'S 5', body: 'B 5', variables: { v: 1 } },
      { to_email: 'r25@example.test', subject: '', body: '', variables: {} },
    ]);
    // The other project has no retention: all of its rows stay.
    expect(await h.sql(`select count(*)::int as n from events where project_id = $1`, [keep.id])).toEqual([
      { n: RETENTION_BATCH + 201 },
    ]);
    expect(
      await h.sql(`select count(*)::int as n from emails where project_id = $1 and subject <> ''`, [keep.id]),
    ).toEqual([{ n: 3 }]);
  });
});
