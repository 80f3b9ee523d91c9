import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';
import { createTemplate, createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { workflowApi } from '../../test/workflows-helpers.js';
import { pickSplitBranch, splitBucket } from './split-pick.js';

// SPLIT and SWITCH steps with a real worker, started by hand (POST /workflows/:id/executions
// {contactIds}), the graph rules' answers, and GET /workflows/:id/stats. Each step after the branch sets data.arm, so the
// contact shows which edge its execution followed.
describe('workflow branches, manual start and per-step stats', () => {
  let h: Harness;
  let p: TestProject;
  let api: ReturnType<typeof workflowApi>;
  const errorOf = (res: { body: Json }) => [res.body.error.errors[0].field, res.body.error.errors[0].code];
  const arm = (key: string): [string, Record<string, unknown>] => ['UPDATE_CONTACT', { updates: { arm: key } }];
  const contact = async (email: string, data: Record<string, unknown> = {}) => {
    const res = await api.req('POST', '/contacts', { email, data });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  /** Waits until `n` executions of the workflow are COMPLETED; @returns them with their contact's data.arm. */
  const completed = (workflowId: string, n: number) =>
    eventually(
      async () => {
        const rows = await h.sql(
          `select x.id, x.contact_id, c.data->>'arm' as arm from workflow_executions x join contacts c on c.id = x.contact_id
          where x.workflow_id = $1 and x.status = 'COMPLETED'`,
          [workflowId],
        );
        return rows.length >= n ? rows : undefined;
      },
      20_000,
      `${n} completed executions`,
    );

  beforeAll(async () => {
    h = await createHarness({ worker: true });
    p = await createProject(h);
    api = workflowApi(h, p);
  });
  afterAll(async () => h?.close());

  it('a SPLIT routes each execution down the branch of its bucket and records it', async () => {
    const branches = [
      { key: 'A', weight: 30 },
      { key: 'B', weight: 70 },
    ];
    const wf = await api.build('split-me', { split: ['SPLIT', { branches }], a: arm('A'), b: arm('B') }, [
      ['trigger', 'split'],
      ['split', 'a', { branch: 'A' }],
      ['split', 'b', { branch: 'B' }],
    ]);
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => contact(`split${i}@example.test`)));
    const started = await api.req('POST', `/workflows/${wf.id}/executions`, { contactIds: ids });
    expect(started.status, started.text).toBe(201);
    expect(started.body.skipped).toEqual([]);
    expect(started.body.data.map((e: Json) => e.contactId)).toEqual(ids);

    const rows = await completed(wf.id, 12);
    const outputs = await h.sql(`select execution_id, output from workflow_step_executions where step_id = $1`, [
      wf.steps.split,
    ]);
    const seen = new Set<string>();
    for (const r of rows) {
      const expected = pickSplitBranch(branches, splitBucket(r.id, wf.steps.split));
      expect(r.arm).toBe(expected);
      expect(outputs.find((o) => o.execution_id === r.id)?.output).toEqual({
        branch: expected,
        bucket: splitBucket(r.id, wf.steps.split),
      });
      seen.add(expected);
    }
    // The same contacts again: allowReentry false keeps every one out, reported, not an error.
    const again = await api.req('POST', `/workflows/${wf.id}/executions`, { contactIds: ids.slice(0, 2) });
    expect(again.status).toBe(201);
    expect(again.body).toEqual({
      data: [],
      skipped: ids.slice(0, 2).map((contactId) => ({ contactId, reason: 'already_entered' })),
    });
  });

  it('a SWITCH takes the first branch that matches, and the default when none does', async () => {
    const wf = await api.build(
      'switch-me',
      {
        sw: [
          'SWITCH',
          {
            branches: [
              { key: 'pro', label: 'Pro plan', field: 'data.plan', operator: 'equals', value: 'pro' },
              { key: 'big', field: 'data.seats', operator: 'greaterThan', value: 10 },
            ],
          },
        ],
        pro: arm('pro'),
        big: arm('big'),
        other: arm('default'),
      },
      [
        ['trigger', 'sw'],
        ['sw', 'pro', { branch: 'pro' }],
        ['sw', 'big', { branch: 'big' }],
        ['sw', 'other', { branch: 'default' }],
      ],
    );
    const both = await contact('both@example.test', { plan: 'pro', seats: 20 });
    const big = await contact('big@example.test', { plan: 'free', seats: 20 });
    const none = await contact('none@example.test', { plan: 'free', seats: 1 });
    const started = await api.req('POST', `/workflows/${wf.id}/executions`, { contactIds: [both, big, none, both] });
    expect(started.status, started.text).toBe(201);
    expect(started.body.data).toHaveLength(3);
    const rows = await completed(wf.id, 3);
    const armOf = (id: string) => rows.find((r) => r.contact_id === id)?.arm;
    expect([armOf(both), armOf(big), armOf(none)]).toEqual(['pro', 'big', 'default']);
    const [run] = await h.sql(
      `select se.output from workflow_step_executions se join workflow_executions x on x.id = se.execution_id
      where x.contact_id = $1 and se.step_id = $2`,
      [both, wf.steps.sw],
    );
    expect(run.output).toEqual({ branch: 'pro', label: 'Pro plan' });
  });

  it('keeps SPLIT and SWITCH graphs valid, naming the step and the edge', async () => {
    const badWeights = await api.req('POST', '/workflows', { name: 'bad', eventName: 'bad' });
    const wfId = badWeights.body.id;
    const sum = await api.req('POST', `/workflows/${wfId}/steps`, {
      type: 'SPLIT',
      name: 'Split 1',
      config: {
        branches: [
          { key: 'A', weight: 60 },
          { key: 'B', weight: 30 },
        ],
      },
    });
    expect(errorOf(sum)).toEqual(['config.branches', 'custom']);
    expect(sum.body.error.message).toContain('The weights add up to 90; they must add up to 100');
    const reserved = await api.req('POST', `/workflows/${wfId}/steps`, {
      type: 'SWITCH',
      name: 'S',
      config: { branches: [{ key: 'default', field: 'data.plan', operator: 'exists' }] },
    });
    expect(errorOf(reserved)).toEqual(['config.branches.0.key', 'custom']);
    const badField = await api.req('POST', `/workflows/${wfId}/steps`, {
      type: 'SWITCH',
      name: 'S',
      config: { branches: [{ key: 'x', field: 'nonsense', operator: 'equals', value: 1 }] },
    });
    expect(errorOf(badField)).toEqual(['config.branches.0.field', 'invalid_field']);

    const wf = await api.build(
      'rules',
      {
        split: [
          'SPLIT',
          {
            branches: [
              { key: 'A', weight: 50 },
              { key: 'B', weight: 50 },
            ],
          },
        ],
        done: ['EXIT', {}],
      },
      [
        ['trigger', 'split'],
        ['split', 'done', { branch: 'A' }],
      ],
      { enabled: false },
    );
    const unknown = await api.req('POST', `/workflows/${wf.id}/transitions`, {
      fromStepId: wf.steps.split,
      toStepId: wf.steps.done,
      branch: 'C',
    });
    expect(errorOf(unknown)).toEqual(['branch', 'branch_unknown']);
    const enable = await api.req('PATCH', `/workflows/${wf.id}`, { enabled: true });
    expect(enable.status).toBe(422);
    expect(enable.body.error.message).toBe('Step "split" has no edge for branch B');
    expect(enable.body.error.details).toMatchObject({
      rule: 'branch_unconnected',
      stepId: wf.steps.split,
      branch: 'B',
    });
    const someone = await contact('rules@example.test');
    const start = await api.req('POST', `/workflows/${wf.id}/executions`, { contactIds: [someone] });
    expect(errorOf(start)).toEqual(['contactIds', 'branch_unconnected']);
    const [edgeA] = await h.sql(`select id from workflow_transitions where from_step_id = $1`, [wf.steps.split]);
    const drop = await api.req('PATCH', `/workflows/${wf.id}/steps/${wf.steps.split}`, {
      config: {
        branches: [
          { key: 'B', weight: 50 },
          { key: 'C', weight: 50 },
        ],
      },
    });
    expect(errorOf(drop)).toEqual(['config.branches', 'branch_connected']);
    expect(drop.body.error.details).toMatchObject({ stepId: wf.steps.split, transitionId: edgeA.id, branch: 'A' });
  });

  it("manual start: 422 naming unknown ids and never another project's contact; 404 workflow", async () => {
    const wf = await api.build('manual', { hold: ['DELAY', { amount: 1, unit: 'days' }] }, [['trigger', 'hold']]);
    const mine = await contact('mine@example.test');
    const other = await createProject(h);
    const theirs = await h.request('POST', '/contacts', {
      key: other.secretKey,
      body: { email: 'theirs@example.test' },
    });
    const missing = '0190aaaa-0000-7000-8000-000000000000';
    const res = await api.req('POST', `/workflows/${wf.id}/executions`, {
      contactIds: [mine, theirs.body.id, missing],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.errors.map((e: Json) => [e.field, e.code])).toEqual([
      ['contactIds.1', 'contact_not_found'],
      ['contactIds.2', 'contact_not_found'],
    ]);
    expect(res.body.error.details).toEqual({ unknownContactIds: [theirs.body.id, missing] });
    const count = async () =>
      (await h.sql('select count(*)::int as n from workflow_executions where workflow_id = $1', [wf.id]))[0].n;
    expect(await count()).toBe(0);
    expect(
      (await h.sql('select count(*)::int as n from workflow_executions where contact_id = $1', [theirs.body.id]))[0].n,
    ).toBe(0);
    expect(errorOf(await api.req('POST', `/workflows/${wf.id}/executions`, { contactIds: [] }))).toEqual([
      'contactIds',
      'too_small',
    ]);
    expect(
      (await api.req('POST', `/workflows/${wf.id}/executions`, { contactId: mine, contactIds: [mine] })).status,
    ).toBe(422);
    expect((await api.req('POST', `/workflows/${missing}/executions`, { contactIds: [mine] })).status).toBe(404);
    const ok = await api.req('POST', `/workflows/${wf.id}/executions`, { contactIds: [mine], context: { why: 'vip' } });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toEqual([
      expect.objectContaining({ contactId: mine, contactEmail: 'mine@example.test', context: { why: 'vip' } }),
    ]);
    expect(await count()).toBe(1);
  });

  it('stats: per step entered, completed, exited, waiting now, and the mail of a SEND_EMAIL step', async () => {
    const { domain } = await createVerifiedDomain(h, p.id);
    const tpl = await createTemplate(h, p.id, { subject: 'Hi', body: '<p>Hi</p>', from: `flow@${domain}` });
    const wf = await api.build(
      'stats',
      { send: ['SEND_EMAIL', { templateId: tpl }], hold: ['DELAY', { amount: 1, unit: 'days' }] },
      [
        ['trigger', 'send'],
        ['send', 'hold'],
      ],
    );
    const ids = [await contact('stats1@example.test'), await contact('stats2@example.test')];
    const started = await api.req('POST', `/workflows/${wf.id}/executions`, { contactIds: ids });
    expect(started.status).toBe(201);
    const statsOf = async () => {
      const res = await api.req('GET', `/workflows/${wf.id}/stats`);
      expect(res.status, res.text).toBe(200);
      return Object.fromEntries(res.body.steps.map((s: Json) => [s.stepId, s]));
    };
    // Both mails leave (their own emails:send jobs) and both executions wait at the delay.
    const s1 = await eventually(
      async () => {
        const s = await statsOf();
        return s[wf.steps.send].mail.sent === 2 && s[wf.steps.hold].waitingNow === 2 ? s : undefined;
      },
      20_000,
      'two mails sent, two executions waiting',
    );
    expect(s1[wf.steps.trigger]).toMatchObject({ type: 'TRIGGER', entered: 2, completed: 2, mail: null });
    expect(s1[wf.steps.send]).toMatchObject({ entered: 2, completed: 2, failed: 0, exited: 0, waitingNow: 0 });
    expect(s1[wf.steps.send].mail).toMatchObject({ emails: 2, opened: 0, humanOpened: 0, bounced: 0 });
    expect(s1[wf.steps.hold]).toMatchObject({ entered: 2, completed: 0, waitingNow: 2, exited: 0 });

    // A machine open on one mail, a human open and click on the other; one execution cancelled.
    const mails = await h.sql(`select id from emails where workflow_step_id = $1 order by id`, [wf.steps.send]);
    await h.sql(`update emails set opened_at = now() where id = $1`, [mails[0].id]);
    await h.sql(
      `update emails set opened_at = now(), human_opened_at = now(), clicked_at = now(), human_clicked_at = now() where id = $1`,
      [mails[1].id],
    );
    const [live] = await h.sql(`select id from workflow_executions where workflow_id = $1 limit 1`, [wf.id]);
    expect((await api.req('DELETE', `/workflows/${wf.id}/executions/${live.id}`)).status).toBe(204);
    const s2 = await statsOf();
    expect(s2[wf.steps.send].mail).toMatchObject({ opened: 2, humanOpened: 1, clicked: 1, humanClicked: 1 });
    expect(s2[wf.steps.hold]).toMatchObject({ waitingNow: 1, exited: 1 });
    // A range before anything happened counts nothing but what waits now.
    const before = await api.req('GET', `/workflows/${wf.id}/stats?from=2020-01-01&to=2020-02-01`);
    expect(before.body.steps.find((s: Json) => s.stepId === wf.steps.hold)).toMatchObject({
      entered: 0,
      exited: 0,
      waitingNow: 1,
    });
    expect((await api.req('GET', `/workflows/${wf.id}/stats?from=2020-02-01&to=2020-01-01`)).status).toBe(422);
  });
});
