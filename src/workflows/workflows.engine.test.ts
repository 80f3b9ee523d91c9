import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';
import { outboxTo } from '../../test/outbox.js';
import { createTemplate, createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { newId } from '../lib/ids.js';
import { workflowApi } from '../../test/workflows-helpers.js';

// The execution engine with a real worker, mail in the outbox. Delays and timeouts are never waited
// for: their jobs are brought forward by job key (`runKeyedJobNow('wf:<execution>:delay')`).
describe('workflow executions', () => {
  let h: Harness;
  let p: TestProject;
  let api: ReturnType<typeof workflowApi>;
  let domain: string;
  const tpl = (subject: string, body = `<p>${subject}</p>`) =>
    createTemplate(h, p.id, { subject, body, from: `flow@${domain}`, type: 'TRANSACTIONAL' });
  const subjectsTo = async (email: string) => (await outboxTo(h.dataDir, email)).map((m) => m.subject);
  const mailsTo = (email: string, n: number) =>
    eventually(
      async () => {
        const s = await subjectsTo(email);
        return s.length >= n ? s : undefined;
      },
      20_000,
      `${n} mails to ${email}`,
    );

  beforeAll(async () => {
    h = await createHarness({ worker: true });
    p = await createProject(h);
    api = workflowApi(h, p);
    domain = (await createVerifiedDomain(h, p.id)).domain;
  });
  afterAll(async () => h?.close());

  it('runs a welcome series: send, delay, condition on data.plan, then a different mail per branch', async () => {
    const welcome = await tpl(
      'Welcome {{name}}',
      '<p>Hi {{name}}, you came from {{source}} with {{coupon ?? "no coupon"}}</p>',
    );
    const proTips = await tpl('Pro tips');
    const upgrade = await tpl('Time to upgrade');
    const wf = await api.build(
      'signup',
      {
        send: ['SEND_EMAIL', { templateId: welcome }],
        wait: ['DELAY', { amount: 2, unit: 'days' }],
        plan: ['CONDITION', { field: 'data.plan', operator: 'equals', value: 'pro' }],
        pro: ['SEND_EMAIL', { templateId: proTips }],
        free: ['SEND_EMAIL', { templateId: upgrade }],
      },
      [
        ['trigger', 'send'],
        ['send', 'wait'],
        ['wait', 'plan'],
        ['plan', 'pro', { branch: 'yes' }],
        ['plan', 'free', { branch: 'no' }],
      ],
    );

    const ann = await api.track('ann@example.test', 'signup', {
      name: 'Ann',
      plan: 'pro',
      source: { value: 'ads', persistent: false },
    });
    const bob = await api.track('bob@example.test', 'signup', { name: 'Bob', plan: 'free' });
    const [ea, eb] = [
      await api.executionOf(wf.id, ann, 'WAITING', wf.steps.wait),
      await api.executionOf(wf.id, bob, 'WAITING', wf.steps.wait),
    ];

    // The mail leaves in its own emails:send job, so wait for it to arrive.
    expect(await mailsTo('ann@example.test', 1)).toEqual(['Welcome Ann']);
    expect(await mailsTo('bob@example.test', 1)).toEqual(['Welcome Bob']);
    const [annMail] = await outboxTo(h.dataDir, 'ann@example.test');
    expect(annMail.html).toContain('you came from ads with no coupon');
    // The delay is a job two days ahead, keyed by the execution.
    const [job] = await h.sql(`select run_at, created_at from ${JOBS} j where key = $1`, [`wf:${ea.id}:delay`]);
    expect(new Date(job.run_at).getTime() - new Date(job.created_at).getTime()).toBeGreaterThan(47 * 3600_000);

    expect(await api.runKeyedJobNow(`wf:${ea.id}:delay`)).toBe(1);
    expect(await api.runKeyedJobNow(`wf:${eb.id}:delay`)).toBe(1);
    await api.executionOf(wf.id, ann, 'COMPLETED');
    await api.executionOf(wf.id, bob, 'COMPLETED');
    expect(await mailsTo('ann@example.test', 2)).toEqual(['Welcome Ann', 'Pro tips']);
    expect(await mailsTo('bob@example.test', 2)).toEqual(['Welcome Bob', 'Time to upgrade']);

    const detail = await api.req('GET', `/workflows/${wf.id}/executions/${ea.id}`);
    expect(detail.body.steps.map((s: Json) => [s.stepId, s.status])).toEqual([
      [wf.steps.trigger, 'COMPLETED'],
      [wf.steps.send, 'COMPLETED'],
      [wf.steps.wait, 'COMPLETED'],
      [wf.steps.plan, 'COMPLETED'],
      [wf.steps.pro, 'COMPLETED'],
    ]);
    expect(detail.body.steps[3].output).toEqual({ result: true });
    const rows = await h.sql(
      `select source_type, workflow_execution_id from emails where to_email = 'ann@example.test'`,
    );
    expect(rows).toEqual([
      { source_type: 'WORKFLOW', workflow_execution_id: ea.id },
      { source_type: 'WORKFLOW', workflow_execution_id: ea.id },
    ]);
  });

  it('fails a SEND_EMAIL step whose template was deleted', async () => {
    const gone = await tpl('Gone');
    const wf2 = await api.build('gone', { send: ['SEND_EMAIL', { templateId: gone }] }, [['trigger', 'send']]);
    await h.sql(`delete from templates where id = $1`, [gone]);
    const c2 = await api.track('gone@example.test', 'gone');
    await api.executionOf(wf2.id, c2, 'FAILED');
    const [step2] = await h.sql(
      `select se.error from workflow_step_executions se join workflow_executions x on x.id = se.execution_id
      where x.workflow_id = $1 and se.step_id = $2`,
      [wf2.id, wf2.steps.send],
    );
    expect(step2.error).toBe('The template of this step no longer exists');
  });

  it('resumes a wait on the event for one contact and on the timeout for another', async () => {
    const thanks = await tpl('Thanks for paying');
    const nudge = await tpl('Still thinking?');
    const wf = await api.build(
      'trial',
      {
        wait: ['WAIT_FOR_EVENT', { eventName: 'paid', timeout: 3 * 86400 }],
        thanks: ['SEND_EMAIL', { templateId: thanks }],
        nudge: ['SEND_EMAIL', { templateId: nudge }],
      },
      [
        ['trigger', 'wait'],
        ['wait', 'thanks', { waitOutcome: 'EVENT' }],
        ['wait', 'nudge', { waitOutcome: 'TIMEOUT' }],
      ],
    );

    const cat = await api.track('cat@example.test', 'trial');
    const dan = await api.track('dan@example.test', 'trial');
    const ec = await api.executionOf(wf.id, cat, 'WAITING', wf.steps.wait);
    const ed = await api.executionOf(wf.id, dan, 'WAITING', wf.steps.wait);
    expect((await h.sql(`select count(*)::int as n from ${JOBS} j where key = $1`, [`wf:${ec.id}:wait`]))[0].n).toBe(1);

    await api.track('cat@example.test', 'paid', { amount: 10 });
    await api.executionOf(wf.id, cat, 'COMPLETED');
    expect(await mailsTo('cat@example.test', 1)).toEqual(['Thanks for paying']);
    // The event removed the timeout job: nothing is left to fire later.
    expect((await h.sql(`select count(*)::int as n from ${JOBS} j where key = $1`, [`wf:${ec.id}:wait`]))[0].n).toBe(0);

    expect(await api.runKeyedJobNow(`wf:${ed.id}:wait`)).toBe(1);
    await api.executionOf(wf.id, dan, 'COMPLETED');
    expect(await mailsTo('dan@example.test', 1)).toEqual(['Still thinking?']);
    const outputs = await h.sql(
      `select x.contact_id, se.output->>'outcome' as outcome from workflow_step_executions se
      join workflow_executions x on x.id = se.execution_id where se.step_id = $1 order by x.contact_id = $2 desc`,
      [wf.steps.wait, cat],
    );
    expect(outputs.map((o) => o.outcome)).toEqual(['EVENT', 'TIMEOUT']);
  });

  it('a dispatch job of several events (a batch of tracks) starts each execution and delivers each personalised mail', async () => {
    const hello = await tpl('Hello {{name}}');
    const wf = await api.build(
      'batched',
      {
        send: ['SEND_EMAIL', { templateId: hello }],
        wait: ['DELAY', { amount: 1, unit: 'days' }],
      },
      [
        ['trigger', 'send'],
        ['send', 'wait'],
      ],
      { enabled: false },
    );
    // Tracked while the workflow is off, so no job is queued; then one job carries the three events.
    const people = ['batch-a', 'batch-b', 'batch-c'];
    const contacts = [];
    for (const name of people) contacts.push(await api.track(`${name}@example.test`, 'batched', { name }));
    const events = await h.sql(`select id from events where project_id = $1 and name = 'batched' order by id`, [p.id]);
    expect(events).toHaveLength(3);
    expect((await api.req('PATCH', `/workflows/${wf.id}`, { enabled: true })).status).toBe(200);
    await h.sql(`select graphile_worker.add_job('workflows:dispatch', json_build_object('eventIds', $1::text[]))`, [
      events.map((e) => e.id),
    ]);

    for (const [i, name] of people.entries()) {
      await api.executionOf(wf.id, contacts[i], 'WAITING', wf.steps.wait);
      expect(await mailsTo(`${name}@example.test`, 1)).toEqual([`Hello ${name}`]);
    }
    await eventually(
      async () => {
        const rows = await h.sql(
          `select e.status from emails e join workflow_executions x on x.id = e.workflow_execution_id where x.workflow_id = $1`,
          [wf.id],
        );
        return rows.length === 3 && rows.every((r) => r.status === 'SENT' || r.status === 'DELIVERED')
          ? rows
          : undefined;
      },
      20_000,
      'three mails recorded sent',
    );
  });

  it('a wait only ends on an event after it began: the triggering event itself does not end it', async () => {
    const wf = await api.build('visit', { again: ['WAIT_FOR_EVENT', { eventName: 'visit' }] }, [['trigger', 'again']]);
    const earlier = newId();
    const liv = await api.track('liv@example.test', 'visit');
    const e = await api.executionOf(wf.id, liv, 'WAITING', wf.steps.again);
    // An event from before the wait whose dispatch job runs only now (a busy queue) does not end it either.
    await h.sql(`insert into events (id, project_id, contact_id, name) values ($1, $2, $3, 'visit')`, [
      earlier,
      p.id,
      liv,
    ]);
    await h.sql(`select graphile_worker.add_job('workflows:dispatch', json_build_object('eventId', $1::text))`, [
      earlier,
    ]);
    await eventually(
      async () =>
        (await h.sql(`select count(*)::int as n from ${JOBS} j where j.task_identifier = 'workflows:dispatch'`))[0]
          .n === 0,
      20_000,
      'dispatch done',
    );
    expect((await h.sql(`select status from workflow_executions where id = $1`, [e.id]))[0].status).toBe('WAITING');
    await api.track('liv@example.test', 'visit');
    await api.executionOf(wf.id, liv, 'COMPLETED');
  });

  it('MARKETING templates skip unsubscribed contacts: the email row is SUPPRESSED and nothing is sent', async () => {
    const news = await createTemplate(h, p.id, {
      subject: 'News',
      body: '<p>n</p>',
      from: `flow@${domain}`,
      type: 'MARKETING',
    });
    const wf = await api.build('newsletter', { send: ['SEND_EMAIL', { templateId: news }] }, [['trigger', 'send']]);
    const res = await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'quiet@example.test', event: 'newsletter', subscribed: false },
    });
    const quiet = res.body.data.contact;
    await api.executionOf(wf.id, quiet, 'COMPLETED');
    expect(await h.sql(`select status, source_type from emails where contact_id = $1`, [quiet])).toEqual([
      { status: 'SUPPRESSED', source_type: 'WORKFLOW' },
    ]);
    expect(await subjectsTo('quiet@example.test')).toEqual([]);
  });

  it('honours allowReentry false (once ever) and true (again once the previous one ended, never two live)', async () => {
    const once = await api.build(
      'ping',
      { mark: ['UPDATE_CONTACT', { updates: { pinged: true } }] },
      [['trigger', 'mark']],
      { allowReentry: false },
    );
    const again = await api.build(
      'ping',
      { mark: ['UPDATE_CONTACT', { updates: { pings: 1 } }] },
      [['trigger', 'mark']],
      { allowReentry: true },
    );
    const held = await api.build('ping', { hold: ['DELAY', { amount: 1, unit: 'hours' }] }, [['trigger', 'hold']], {
      allowReentry: true,
    });
    const eve = await api.track('eve@example.test', 'ping');
    await api.executionOf(once.id, eve, 'COMPLETED');
    await api.executionOf(again.id, eve, 'COMPLETED');
    await api.executionOf(held.id, eve, 'WAITING');
    await api.track('eve@example.test', 'ping');
    await eventually(
      async () =>
        (
          await h.sql(
            `select count(*)::int as n from workflow_executions where workflow_id = $1 and status = 'COMPLETED'`,
            [again.id],
          )
        )[0].n === 2,
      20_000,
      'second entry',
    );
    // Every dispatch job has run, so the other two workflows have had their chance and refused.
    await eventually(
      async () =>
        (await h.sql(`select count(*)::int as n from ${JOBS} j where j.task_identifier = 'workflows:dispatch'`))[0]
          .n === 0,
      20_000,
      'dispatch done',
    );
    const counts = await h.sql(
      `select workflow_id, count(*)::int as n from workflow_executions where contact_id = $1 group by workflow_id`,
      [eve],
    );
    const byWf = Object.fromEntries(counts.map((c) => [c.workflow_id, c.n]));
    expect(byWf).toEqual({ [once.id]: 1, [again.id]: 2, [held.id]: 1 });
    expect((await h.sql(`select data from contacts where id = $1`, [eve]))[0].data).toMatchObject({
      pinged: true,
      pings: 1,
    });
  });

  it('cancelling an execution removes its pending delay: the next step never runs', async () => {
    const late = await tpl('Too late');
    const wf = await api.build(
      'cancelme',
      { hold: ['DELAY', { amount: 1, unit: 'hours' }], send: ['SEND_EMAIL', { templateId: late }] },
      [
        ['trigger', 'hold'],
        ['hold', 'send'],
      ],
    );
    const fay = await api.track('fay@example.test', 'cancelme');
    const e = await api.executionOf(wf.id, fay, 'WAITING', wf.steps.hold);
    expect((await api.req('DELETE', `/workflows/${wf.id}/executions/${e.id}`)).status).toBe(204);
    expect(await api.runKeyedJobNow(`wf:${e.id}:delay`)).toBe(0);
    const detail = (await api.req('GET', `/workflows/${wf.id}/executions/${e.id}`)).body;
    expect(detail.status).toBe('CANCELLED');
    expect(detail.steps.find((s: Json) => s.stepId === wf.steps.hold).status).toBe('CANCELLED');
    // A resume job that was already taken by a worker would find the execution CANCELLED: run one by hand.
    await h.sql(
      `select graphile_worker.add_job('workflows:resume', json_build_object('executionId', $1::text, 'stepId', $2::text, 'outcome', 'DELAY'))`,
      [e.id, wf.steps.hold],
    );
    await eventually(
      async () =>
        (
          await h.sql(
            `select count(*)::int as n from ${JOBS} j where j.task_identifier = 'workflows:resume' and j.payload->>'executionId' = $1`,
            [e.id],
          )
        )[0].n === 0,
      20_000,
      'resume job done',
    );
    expect(await subjectsTo('fay@example.test')).toEqual([]);
    expect((await h.sql(`select count(*)::int as n from emails where contact_id = $1`, [fay]))[0].n).toBe(0);
  });

  it('starts on service events too: contact.unsubscribed from PATCH /contacts, and an UPDATE_CONTACT that unsubscribes', async () => {
    const onLeave = await api.build(
      'contact.unsubscribed',
      { tag: ['UPDATE_CONTACT', { updates: { churned: true, plan: null } }] },
      [['trigger', 'tag']],
    );
    const leaver = await api.build('leave', { unsub: ['UPDATE_CONTACT', { subscriptionAction: 'unsubscribe' }] }, [
      ['trigger', 'unsub'],
    ]);
    const gus = await api.track('gus@example.test', 'signup-later', { plan: 'pro' });
    await api.req('PATCH', `/contacts/${gus}`, { subscribed: false });
    await api.executionOf(onLeave.id, gus, 'COMPLETED');
    expect((await h.sql(`select data from contacts where id = $1`, [gus]))[0].data).toEqual({ churned: true });

    const hal = await api.track('hal@example.test', 'leave');
    await api.executionOf(leaver.id, hal, 'COMPLETED');
    await api.executionOf(onLeave.id, hal, 'COMPLETED');
    expect((await h.sql(`select subscribed from contacts where id = $1`, [hal]))[0].subscribed).toBe(false);
  });

  it('CONDITION on event.data and context', async () => {
    const big = await tpl('Big order');
    const vip = await tpl('VIP');
    const wf = await api.build(
      'order',
      {
        amount: ['CONDITION', { field: 'event.data.total', operator: 'greaterThan', value: 100 }],
        big: ['SEND_EMAIL', { templateId: big }],
      },
      [
        ['trigger', 'amount'],
        ['amount', 'big', { branch: 'yes' }],
      ],
    );
    const ivy = await api.track('ivy@example.test', 'order', { total: { value: 250, persistent: false } });
    const jon = await api.track('jon@example.test', 'order', { total: { value: 20, persistent: false } });
    await api.executionOf(wf.id, ivy, 'COMPLETED');
    await api.executionOf(wf.id, jon, 'COMPLETED');
    expect(await mailsTo('ivy@example.test', 1)).toEqual(['Big order']);
    expect(await subjectsTo('jon@example.test')).toEqual([]);

    const manual = await api.build(
      'never-tracked',
      {
        tier: ['CONDITION', { field: 'context.tier', operator: 'equals', value: 'gold' }],
        vip: ['SEND_EMAIL', { templateId: vip, recipient: { type: 'CUSTOM', email: 'desk@example.test' } }],
      },
      [
        ['trigger', 'tier'],
        ['tier', 'vip', { branch: 'yes' }],
      ],
    );
    const started = await api.req('POST', `/workflows/${manual.id}/executions`, {
      contactId: jon,
      context: { tier: 'gold' },
    });
    expect(started.status).toBe(201);
    await api.executionOf(manual.id, jon, 'COMPLETED');
    expect(await mailsTo('desk@example.test', 1)).toEqual(['VIP']);
  });
  it('starts on segment.<slug>.entry events of a tracked segment compute', async () => {
    const wf = await api.build(
      'segment.big-spenders.entry',
      { tag: ['UPDATE_CONTACT', { updates: { welcomedToVip: true } }] },
      [['trigger', 'tag']],
    );
    const ids = [
      await api.track('seg1@example.test', 'x', { spend: 500 }),
      await api.track('seg2@example.test', 'x', { spend: 900 }),
    ];
    const other = await api.track('seg3@example.test', 'x', { spend: 5 });
    const seg = await api.req('POST', '/segments', {
      name: 'Big spenders',
      trackMembership: true,
      condition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'data.spend', operator: 'greaterThan', value: 100 }] }],
      },
    });
    expect(seg.status, seg.text).toBe(201);
    expect((await api.req('POST', `/segments/${seg.body.id}/compute`)).status).toBe(200);
    for (const id of ids) await api.executionOf(wf.id, id, 'COMPLETED');
    expect(
      (
        await h.sql(`select count(*)::int as n from contacts where id = any($1) and data->>'welcomedToVip' = 'true'`, [
          ids,
        ])
      )[0].n,
    ).toBe(2);
    expect(
      (await h.sql(`select count(*)::int as n from workflow_executions where contact_id = $1`, [other]))[0].n,
    ).toBe(0);
  });

  it('fails a SEND_EMAIL step past the monthly workflows cap', async () => {
    const q = await createProject(h);
    const qapi = workflowApi(h, q);
    const d = (await createVerifiedDomain(h, q.id)).domain;
    const one = await createTemplate(h, q.id, { subject: 'One', body: '1', from: `a@${d}`, type: 'TRANSACTIONAL' });
    const two = await createTemplate(h, q.id, { subject: 'Two', body: '2', from: `a@${d}`, type: 'TRANSACTIONAL' });
    await h.sql(
      `update projects set billing_limits = '{"transactional": null, "campaigns": null, "workflows": 1}' where id = $1`,
      [q.id],
    );
    const wf = await qapi.build(
      'capped',
      { one: ['SEND_EMAIL', { templateId: one }], two: ['SEND_EMAIL', { templateId: two }] },
      [
        ['trigger', 'one'],
        ['one', 'two'],
      ],
    );
    const c = await qapi.track('cap@example.test', 'capped');
    const e = await qapi.executionOf(wf.id, c, 'FAILED');
    expect(e.exit_reason).toMatch(/limit/);
    expect(await mailsTo('cap@example.test', 1)).toEqual(['One']);
  });
});
