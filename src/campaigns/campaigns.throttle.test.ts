import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';
import { FANOUT_DONE, runFanout } from './fanout.js';

// EMAIL_RATE_LIMIT_PER_SECOND: the fan-out spreads the send jobs' run_at.
// No worker here: the fan-out job is run by hand and its output (rows and queued jobs) inspected.
describe('campaign fan-out under a per-project send rate', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { EMAIL_RATE_LIMIT_PER_SECOND: '10' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  const sendJobs = (campaignId: string) =>
    h.sql(
      `select j.run_at, j.created_at from ${JOBS} j
    where j.task_identifier = 'emails:send' and (j.payload->>'emailId')::uuid in (select id from emails where campaign_id = $1)
    order by j.run_at`,
      [campaignId],
    );

  it('lines up send jobs at the configured rate, a second campaign of the project behind the first', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    await h.sql(
      `insert into contacts (id, project_id, email) select gen_random_uuid(), $1, 't' || i || '@x.test' from generate_series(1, 30) i`,
      [p.id],
    );
    const ids: string[] = [];
    for (const name of ['first', 'second']) {
      const c = await h.request('POST', '/campaigns', {
        key: p.secretKey,
        body: { name, subject: 's', body: '<p>b</p>', from: `a@${d.domain}` },
      });
      expect((await h.request('POST', `/campaigns/${c.body.data.id}/send`, { key: p.secretKey })).status).toBe(200);
      ids.push(c.body.data.id);
    }
    await runFanout(h.deps, ids[0]);
    await runFanout(h.deps, ids[1]);
    expect((await h.sql(`select fanout_checkpoint from campaigns where id = $1`, [ids[0]]))[0].fanout_checkpoint).toBe(
      FANOUT_DONE,
    );

    const firstJobs = await sendJobs(ids[0]);
    const first = firstJobs.map((j) => j.run_at.getTime());
    const second = (await sendJobs(ids[1])).map((j) => j.run_at.getTime());
    expect(first).toHaveLength(30);
    expect(second).toHaveLength(30);
    // 30 jobs at 10 per second: 2.9 s from the first to the last, 100 ms apart.
    expect(first[29] - first[0]).toBeCloseTo(2900, -1);
    expect(first[1] - first[0]).toBeCloseTo(100, -1);
    // Nothing of the project queued ahead: the first is due as it is queued (its run_at is the fan-out
    // transaction's now(), as is the time Graphile wrote the row), not lined up behind anything.
    expect(firstJobs[0].run_at).toEqual(firstJobs[0].created_at);
    // The second campaign waits behind the 30 still pending of the first: 3 s later.
    expect(second[0] - first[0]).toBeGreaterThanOrEqual(2900);
    expect(second[29] - second[0]).toBeCloseTo(2900, -1);
  });

  it('runs a fan-out twice without creating a second email or job for anyone', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    await h.sql(
      `insert into contacts (id, project_id, email) select gen_random_uuid(), $1, 'u' || i || '@x.test' from generate_series(1, 2500) i`,
      [p.id],
    );
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: 'n', subject: 's', body: '<p>b</p>', from: `a@${d.domain}` },
    });
    const id = c.body.data.id;
    await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey });
    // Two fan-outs at once (a retried job beside its continuation) and a third one afterwards.
    await Promise.all([runFanout(h.deps, id), runFanout(h.deps, id)]);
    await h.sql(`update campaigns set fanout_checkpoint = null where id = $1`, [id]);
    await runFanout(h.deps, id);
    const [r] = await h.sql(
      `select count(*)::int as n, count(distinct contact_id)::int as c from emails where campaign_id = $1`,
      [id],
    );
    expect(r).toEqual({ n: 2500, c: 2500 });
    expect(await sendJobs(id)).toHaveLength(2500);
    expect((await h.request('GET', `/campaigns/${id}`, { key: p.secretKey })).body).toMatchObject({
      status: 'SENDING',
      totalRecipients: 2500,
    });
  }, 60_000);
});
