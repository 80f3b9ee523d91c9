import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';
import { newId } from '../lib/ids.js';
import { compileCondition } from './compile.js';
import { MAX_EXPANDED_FILTERS, MAX_REFERENCE_DEPTH } from './reference-limits.js';
import { buildTaskList } from '../worker/tasks.js';
import { addContact, one } from '../../test/segments-helpers.js';

/** A tree of `n` filters that each name segment `id` (the "S1 = 500×S0"), 100 to a group (the cap per group). */
const refs = (id: string, n: number) => ({
  logic: 'AND',
  groups: Array.from({ length: Math.ceil(n / 100) }, (_, g) => ({
    filters: Array.from({ length: Math.min(100, n - g * 100) }, () => ({
      field: `segment.${id}`,
      operator: 'memberOfSegment',
    })),
  })),
});

// Issue "Hardening" 2: segment references are held to one budget of inlined filters and a maximum
// depth, on every save that names a segment and in the compiler itself.
describe('segment reference limits', () => {
  let h: Harness;
  let p: TestProject;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    await addContact(h, p.id, 'pro@x.test', { plan: 'pro' });
    await addContact(h, p.id, 'free@x.test', { plan: 'free' });
  });
  afterAll(async () => h?.close());

  const post = (name: string, condition: unknown) =>
    h.request('POST', '/segments', { key: p.secretKey, body: { name, condition } });

  it('refuses the chain of the issue through the API: S1 = 500×S0 is over the budget of the whole expanded tree, and so is anything naming a full segment', async () => {
    expect(MAX_EXPANDED_FILTERS).toBe(500);
    const s0 = await post('S0', one('data.plan', 'equals', 'pro'));
    expect(s0.status, s0.text).toBe(201);
    // 500 references + 500 inlined copies of S0's one filter = 1,000.
    const s1 = await post('S1', refs(s0.body.id, 500));
    expect(s1.status).toBe(422);
    expect(s1.body.error.errors).toEqual([
      {
        field: 'condition.groups.2.filters.50',
        code: 'segment_too_large',
        message: expect.stringMatching(/more than 500 filters .*: condition\.groups\.2\.filters\.50$/),
      },
    ]);
    // 250 references + 250 inlined filters = 500: exactly the budget.
    const half = await post('S1 half', refs(s0.body.id, 250));
    expect(half.status, half.text).toBe(201);
    expect(half.body.memberCount).toBe(1);
    // S2 naming it even once is 501; the 422 names the path down to where the budget ran out.
    const s2 = await post('S2', refs(half.body.id, 1));
    expect(s2.status).toBe(422);
    expect(s2.body.error.errors).toEqual([
      {
        field: 'condition.groups.0.filters.0',
        code: 'segment_too_large',
        message: expect.stringContaining(
          `condition.groups.0.filters.0 → segment "S1 half" (${half.body.id}) → segment "S0" (${s0.body.id})`,
        ),
      },
    ]);
    expect(s2.body.error.details).toEqual({
      limit: 500,
      path: [
        { segmentId: half.body.id, name: 'S1 half' },
        { segmentId: s0.body.id, name: 'S0' },
      ],
    });
    expect(
      (await h.sql(`select name from segments where project_id = $1 order by name`, [p.id])).map((r) => r.name),
    ).toEqual(['S0', 'S1 half']);
  });

  it(`refuses a reference chain deeper than ${MAX_REFERENCE_DEPTH} levels`, async () => {
    const t0 = await post('T0', one('data.plan', 'equals', 'pro'));
    let prev = t0.body.id as string;
    const ids = [prev];
    for (const name of ['T1', 'T2', 'T3']) {
      const r = await post(name, refs(prev, 1));
      expect(r.status, r.text).toBe(201);
      expect(r.body.memberCount).toBe(1);
      prev = r.body.id;
      ids.push(prev);
    }
    const t4 = await post('T4', refs(prev, 1));
    expect(t4.status).toBe(422);
    expect(t4.body.error.errors[0]).toMatchObject({ field: 'condition.groups.0.filters.0', code: 'segment_too_deep' });
    expect(t4.body.error.errors[0].message).toContain(
      `segment "T3" (${ids[3]}) → segment "T2" (${ids[2]}) → segment "T1" (${ids[1]}) → segment "T0" (${ids[0]})`,
    );
    // The same tree as a campaign audience is refused too.
    const d = await createVerifiedDomain(h, p.id);
    const camp = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: {
        name: 'c',
        subject: 's',
        body: '<p>b</p>',
        from: `a@${d.domain}`,
        audienceType: 'FILTERED',
        audienceCondition: refs(prev, 1),
      },
    });
    expect(camp.status).toBe(422);
    expect(camp.body.error.errors[0]).toMatchObject({
      field: 'audienceCondition.groups.0.filters.0',
      code: 'segment_too_deep',
    });
  });

  it('refuses a PATCH of a referenced segment that would take a segment or a campaign audience naming it past the budget', async () => {
    const q = await createProject(h);
    const postQ = (name: string, condition: unknown) =>
      h.request('POST', '/segments', { key: q.secretKey, body: { name, condition } });
    const patchS0 = (id: string, condition: unknown) =>
      h.request('PATCH', `/segments/${id}`, { key: q.secretKey, body: { condition } });
    const s0 = await postQ('S0', one('data.plan', 'equals', 'pro'));
    const s1 = await postQ('S1', refs(s0.body.id, 200)); // 200 + 200 = 400
    const s2 = await postQ('S2', {
      logic: 'OR',
      groups: [{ filters: [{ field: `segment.${s1.body.id}`, operator: 'memberOfSegment' }] }],
    }); // 401
    expect([s0.status, s1.status, s2.status]).toEqual([201, 201, 201]);

    const two = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'data.plan', operator: 'equals', value: 'pro' },
            { field: 'email', operator: 'contains', value: '@' },
          ],
        },
      ],
    };
    // S0 with 2 filters is fine alone, but S1 would be 200 + 400 (and S2 one more).
    const patch = await patchS0(s0.body.id, two);
    expect(patch.status).toBe(422);
    const e = patch.body.error.errors[0];
    expect(e).toMatchObject({ field: 'condition', code: 'segment_too_large' });
    expect(e.message).toMatch(
      new RegExp(
        `^This condition would take segment "S1" \\(${s1.body.id}\\) past a limit: .*→ segment "S0" \\(${s0.body.id}\\)`,
      ),
    );
    expect(patch.body.error.details).toMatchObject({
      limit: 500,
      referencedBy: { type: 'segment', id: s1.body.id, name: 'S1' },
    });
    // Nothing changed.
    expect((await h.request('GET', `/segments/${s0.body.id}`, { key: q.secretKey })).body.condition).toEqual(
      one('data.plan', 'equals', 'pro'),
    );
    // A change that keeps S1 within the budget goes through.
    const ok = await patchS0(s0.body.id, one('data.plan', 'equals', 'free'));
    expect(ok.status, ok.text).toBe(200);

    // Campaign audiences (DRAFT, SCHEDULED) are trees that name segments too.
    await h.sql(`delete from segments where id = any($1::uuid[])`, [[s1.body.id, s2.body.id]]);
    const d = await createVerifiedDomain(h, q.id);
    const campaign = (audienceCondition: unknown) =>
      h.request('POST', '/campaigns', {
        key: q.secretKey,
        body: {
          name: 'c',
          subject: 's',
          body: '<p>b</p>',
          from: `a@${d.domain}`,
          audienceType: 'FILTERED',
          audienceCondition,
        },
      });
    const over = await campaign(refs(s0.body.id, 300)); // 600
    expect(over.status).toBe(422);
    expect(over.body.error.errors[0]).toMatchObject({
      field: 'audienceCondition.groups.2.filters.50',
      code: 'segment_too_large',
    });
    const c = await campaign(refs(s0.body.id, 200)); // 400
    expect(c.status, c.text).toBe(201);
    const viaCampaign = await patchS0(s0.body.id, two);
    expect(viaCampaign.status).toBe(422);
    expect(viaCampaign.body.error.details.referencedBy).toEqual({ type: 'campaign', id: c.body.data.id, name: 'c' });
    expect(viaCampaign.body.error.errors[0].message).toMatch(/^This condition would take campaign audience of "c"/);
  });

  it('the compiler never builds an over-limit tree saved before the limits: the cron skips it, logs an error and records the reason', async () => {
    const q = await createProject(h);
    await addContact(h, q.id, 'pro@x.test', { plan: 'pro' });
    // The chain of the issue, written straight into the table (as rows saved before the fix would be):
    // S3 = 500×S2, S2 = 500×S1, S1 = 500×S0 expands to 1.25·10^8 filters (it ran the worker out of memory).
    const ids = [newId(), newId(), newId(), newId()];
    const conditions = [one('data.plan', 'equals', 'pro'), refs(ids[0], 500), refs(ids[1], 500), refs(ids[2], 500)];
    for (const [i, id] of ids.entries()) {
      await h.sql(
        `insert into segments (id, project_id, name, type, condition, track_membership) values ($1, $2, $3, 'DYNAMIC', $4, true)`,
        [id, q.id, `S${i}`, JSON.stringify(conditions[i])],
      );
    }
    const err = await compileCondition(conditions[3], {
      db: h.deps.db,
      projectId: q.id,
      now: new Date(),
      segmentStack: [ids[3]],
    }).then(
      () => null,
      (x) => x,
    );
    expect(err).toMatchObject({
      status: 422,
      errors: [{ field: 'condition.groups.0.filters.0', code: 'segment_too_large' }],
    });

    const logged: string[] = [];
    const helpers = {
      logger: {
        info: () => undefined,
        warn: (m: string) => logged.push(`warn ${m}`),
        error: (m: string) => logged.push(`error ${m}`),
      },
    } as unknown as JobHelpers;
    const task = buildTaskList(h.deps)['segments:compute'];
    for (const id of ids) await task({ segmentId: id }, helpers);
    // S0 computes; S1, S2 and S3 are skipped with an error in the log and their reason kept.
    expect(logged).toHaveLength(3);
    for (const [i, line] of logged.entries())
      expect(line).toMatch(new RegExp(`^error segment ${ids[i + 1]} not computed: .*more than 500 filters`));
    const rows = await h.sql(
      `select name, member_count, compute_error from segments where project_id = $1 order by name`,
      [q.id],
    );
    expect(rows.map((r) => [r.name, r.member_count, r.compute_error === null])).toEqual([
      ['S0', 1, true],
      ['S1', 0, false],
      ['S2', 0, false],
      ['S3', 0, false],
    ]);
    const s3 = await h.request('GET', `/segments/${ids[3]}`, { key: q.secretKey });
    expect(s3.body.computeError).toContain(`segment "S2" (${ids[2]}) → segment "S1" (${ids[1]})`);
    // The API answers 422 for it too, never a 500 or a hang.
    expect((await h.request('POST', `/segments/${ids[3]}/compute`, { key: q.secretKey })).status).toBe(422);
    expect((await h.request('GET', `/segments/${ids[3]}/contacts`, { key: q.secretKey })).status).toBe(422);

    // Once the chain is repaired (each names the one below once), the next compute clears the reason.
    for (const i of [1, 2, 3])
      await h.sql(`update segments set condition = $2 where id = $1`, [ids[i], JSON.stringify(refs(ids[i - 1], 1))]);
    await task({ segmentId: ids[3] }, helpers);
    expect((await h.sql(`select compute_error, member_count from segments where id = $1`, [ids[3]]))[0]).toEqual({
      compute_error: null,
      member_count: 1,
    });
  });
});
