import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { JOBS, deleteJobsOf, setAttempts } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createTemplate, createVerifiedDomain } from '../../test/sending-fixtures.js';
import { dispatchEvent, dispatchEvents } from './dispatch.js';
import { INLINE_STEPS } from './chain.js';
import { workflowDispatchJob } from './workflows.jobs.js';
import { workflowApi } from '../../test/workflows-helpers.js';

// Steps that follow one another without a wait run in the transaction that reaches them (engine.ts
// runChain). No worker runs here: the dispatch job's function is called directly, and the queue is
// read to see which jobs the chain left behind.
describe('workflow steps run inline', () => {
  let h: Harness;
  let p: TestProject;
  let api: ReturnType<typeof workflowApi>;
  let domain: string;

  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    api = workflowApi(h, p);
    domain = (await createVerifiedDomain(h, p.id)).domain;
  });
  afterAll(async () => h?.close());

  /** Tracks `event` for `email` and runs its dispatch job here. @returns the contact id. */
  async function trackAndDispatch(email: string, event: string): Promise<string> {
    const contactId = await api.track(email, event);
    const [ev] = await h.sql(`select id from events where contact_id = $1 and name = $2`, [contactId, event]);
    await dispatchEvent(h.deps, ev.id);
    return contactId;
  }
  const jobsOf = async (executionId: string) =>
    h.sql(
      `select j.task_identifier as task, j.payload->>'stepId' as step, j.key
    from ${JOBS} j
    where j.payload->>'executionId' = $1 order by j.id`,
      [executionId],
    );
  const executionOf = async (workflowId: string, contactId: string) =>
    (
      await h.sql(`select * from workflow_executions where workflow_id = $1 and contact_id = $2`, [
        workflowId,
        contactId,
      ])
    )[0];

  /**
   * Runs `fn` with a row trigger `before <event>` (e.g. 'insert on emails') whose PL/pgSQL body is
   * `body`, dropped afterwards whatever `fn` does: a database fault made to happen for chosen rows.
   */
  async function withTrigger<T>(event: string, body: string, fn: () => Promise<T>): Promise<T> {
    const table = event.split(' on ')[1];
    await h.sql(`create or replace function inline_test_trigger() returns trigger language plpgsql as $$ ${body} $$`);
    await h.sql(
      `create trigger inline_test_trigger before ${event} for each row execute function inline_test_trigger()`,
    );
    try {
      return await fn();
    } finally {
      await h.sql(`drop trigger inline_test_trigger on ${table}`);
      await h.sql(`drop function inline_test_trigger()`);
    }
  }

  it('the dispatch job runs SEND_EMAIL and DELAY itself: the mail and the delay are queued, no step job', async () => {
    const tpl = await createTemplate(h, p.id, {
      subject: 'Hello inline',
      body: '<p>Hi</p>',
      from: `flow@${domain}`,
      type: 'TRANSACTIONAL',
    });
    const wf = await api.build(
      'inline-signup',
      {
        send: ['SEND_EMAIL', { templateId: tpl }],
        wait: ['DELAY', { amount: 1, unit: 'days' }],
      },
      [
        ['trigger', 'send'],
        ['send', 'wait'],
      ],
    );
    const contactId = await trackAndDispatch('inline@example.test', 'inline-signup');

    const x = await executionOf(wf.id, contactId);
    expect(x).toMatchObject({ status: 'WAITING', current_step_id: wf.steps.wait });
    const steps = await h.sql(
      `select step_id, status from workflow_step_executions where execution_id = $1 order by id`,
      [x.id],
    );
    expect(steps.map((s) => [s.step_id, s.status])).toEqual([
      [wf.steps.trigger, 'COMPLETED'],
      [wf.steps.send, 'COMPLETED'],
      [wf.steps.wait, 'WAITING'],
    ]);
    const [mail] = await h.sql(`select id, status, subject from emails where workflow_execution_id = $1`, [x.id]);
    expect(mail).toMatchObject({ status: 'PENDING', subject: 'Hello inline' });
    // Left in the queue: the delay's resume job only (the mail's emails:send job carries no executionId).
    expect(await jobsOf(x.id)).toEqual([{ task: 'workflows:resume', step: wf.steps.wait, key: `wf:${x.id}:delay` }]);
    const sends = await h.sql(
      `select count(*)::int as n from ${JOBS} j
      where j.task_identifier = 'emails:send' and j.payload->>'emailId' = $1`,
      [mail.id],
    );
    expect(sends[0].n).toBe(1);

    // A second dispatch of the same event starts nothing and sends nothing.
    const [ev] = await h.sql(`select id from events where contact_id = $1 and name = 'inline-signup'`, [contactId]);
    await dispatchEvent(h.deps, ev.id);
    expect((await h.sql(`select count(*)::int as n from emails where workflow_execution_id = $1`, [x.id]))[0].n).toBe(
      1,
    );
    expect(
      (await h.sql(`select count(*)::int as n from workflow_executions where workflow_id = $1`, [wf.id]))[0].n,
    ).toBe(1);
  });

  it(`a chain stops after ${INLINE_STEPS} steps and hands the next one to a workflows:step job`, async () => {
    const steps: Record<string, [string, Record<string, unknown>]> = {};
    const links: Array<[string, string]> = [];
    let prev = 'trigger';
    for (let i = 1; i <= INLINE_STEPS + 2; i++) {
      steps[`u${i}`] = ['UPDATE_CONTACT', { updates: { [`k${i}`]: i } }];
      links.push([prev, `u${i}`]);
      prev = `u${i}`;
    }
    const wf = await api.build('inline-long', steps, links);
    const contactId = await trackAndDispatch('long@example.test', 'inline-long');

    const x = await executionOf(wf.id, contactId);
    expect(x).toMatchObject({ status: 'RUNNING', current_step_id: wf.steps[`u${INLINE_STEPS + 1}`] });
    const done = await h.sql(
      `select count(*)::int as n from workflow_step_executions where execution_id = $1 and status = 'COMPLETED'`,
      [x.id],
    );
    expect(done[0].n).toBe(INLINE_STEPS + 1); // the trigger and INLINE_STEPS updates
    expect(await jobsOf(x.id)).toEqual([{ task: 'workflows:step', step: wf.steps[`u${INLINE_STEPS + 1}`], key: null }]);
    const [c] = await h.sql(`select data from contacts where id = $1`, [contactId]);
    expect(c.data[`k${INLINE_STEPS}`]).toBe(INLINE_STEPS);
    expect(c.data[`k${INLINE_STEPS + 1}`]).toBeUndefined();
  });

  it('a step that throws rolls the whole chain back: the execution starts at its first step, whose job will retry it', async () => {
    const tpl = await createTemplate(h, p.id, {
      subject: 'inline-explodes',
      body: '<p>x</p>',
      from: `flow@${domain}`,
      type: 'TRANSACTIONAL',
    });
    const wf = await api.build(
      'inline-boom',
      {
        first: ['UPDATE_CONTACT', { updates: { first: 'ran' } }],
        send: ['SEND_EMAIL', { templateId: tpl }],
      },
      [
        ['trigger', 'first'],
        ['first', 'send'],
      ],
    );
    // A database error in the second step: inserting this mail's row fails.
    const contactId = await withTrigger(
      'insert on emails',
      `begin if new.subject = 'inline-explodes' then raise exception 'inline test: this insert fails'; end if; return new; end`,
      () => trackAndDispatch('boom@example.test', 'inline-boom'),
    );

    const x = await executionOf(wf.id, contactId);
    expect(x).toMatchObject({ status: 'RUNNING', current_step_id: wf.steps.first });
    const steps = await h.sql(`select step_id from workflow_step_executions where execution_id = $1`, [x.id]);
    expect(steps.map((s) => s.step_id)).toEqual([wf.steps.trigger]);
    const [c] = await h.sql(`select data from contacts where id = $1`, [contactId]);
    expect(c.data.first).toBeUndefined(); // the first step's update was rolled back with the chain
    expect(await jobsOf(x.id)).toEqual([{ task: 'workflows:step', step: wf.steps.first, key: null }]);
    expect((await h.sql(`select count(*)::int as n from emails where workflow_execution_id = $1`, [x.id]))[0].n).toBe(
      0,
    );
  });

  /** Tracks `event` for each address. @returns the contact ids and the event ids, in order. */
  async function trackAll(emails: string[], event: string): Promise<{ contacts: string[]; events: string[] }> {
    const contacts: string[] = [];
    const events: string[] = [];
    for (const email of emails) {
      const contactId = await api.track(email, event);
      contacts.push(contactId);
      events.push((await h.sql(`select id from events where contact_id = $1 and name = $2`, [contactId, event]))[0].id);
    }
    return { contacts, events };
  }
  const sendJobsOf = async (task: string, emailIds: string[]) =>
    h.sql(
      `select j.payload, j.priority from ${JOBS} j
    where j.task_identifier = $1 and (j.payload->>'emailId' = any($2::text[]) or exists (
      select 1 from json_array_elements_text((j.payload::json)->'emailIds') x(id) where x.id = any($2::text[])))`,
      [task, emailIds],
    );

  /** An enabled workflow on `event`: SEND_EMAIL of a transactional template with `subject`, then a one-day DELAY. */
  async function mailThenDelay(event: string, subject: string) {
    const tpl = await createTemplate(h, p.id, {
      subject,
      body: '<p>Hi</p>',
      from: `flow@${domain}`,
      type: 'TRANSACTIONAL',
    });
    return api.build(
      event,
      {
        send: ['SEND_EMAIL', { templateId: tpl }],
        wait: ['DELAY', { amount: 1, unit: 'days' }],
      },
      [
        ['trigger', 'send'],
        ['send', 'wait'],
      ],
    );
  }

  /**
   * After a batch was rolled back and redone start by start: each of `ok` waits in the delay with its
   * PENDING mail on an `emails:send` job of its own (no batch holds it); `failed`, whose chain failed
   * alone too, stands RUNNING at the send step with its step job to retry it, and has no mail.
   */
  async function expectRanAlone(
    wf: Awaited<ReturnType<typeof mailThenDelay>>,
    ok: string[],
    failed: string,
  ): Promise<void> {
    for (const contactId of ok) {
      const x = await executionOf(wf.id, contactId);
      expect(x).toMatchObject({ status: 'WAITING', current_step_id: wf.steps.wait });
      const [mail] = await h.sql(`select id, status from emails where workflow_execution_id = $1`, [x.id]);
      expect(mail.status).toBe('PENDING');
      expect(await sendJobsOf('emails:send', [mail.id])).toHaveLength(1);
      expect(await sendJobsOf('emails:send-batch', [mail.id])).toEqual([]);
    }
    const bad = await executionOf(wf.id, failed);
    expect(bad).toMatchObject({ status: 'RUNNING', current_step_id: wf.steps.send });
    expect(await jobsOf(bad.id)).toEqual([{ task: 'workflows:step', step: wf.steps.send, key: null }]);
    expect((await h.sql(`select count(*)::int as n from emails where workflow_execution_id = $1`, [bad.id]))[0].n).toBe(
      0,
    );
  }

  it('one dispatch job of several events starts them in one transaction and sends their mails as one transactional batch', async () => {
    const wf = await mailThenDelay('batch-signup', 'Hello batch');
    const { contacts, events } = await trackAll(
      ['b1@example.test', 'b2@example.test', 'b3@example.test'],
      'batch-signup',
    );
    await dispatchEvents(h.deps, events);

    const mails: string[] = [];
    for (const [i, contactId] of contacts.entries()) {
      const x = await executionOf(wf.id, contactId);
      expect(x).toMatchObject({ status: 'WAITING', current_step_id: wf.steps.wait });
      expect(await jobsOf(x.id)).toEqual([{ task: 'workflows:resume', step: wf.steps.wait, key: `wf:${x.id}:delay` }]);
      // The batch's last statement wrote every wait's record; each mail went to its own contact.
      const steps = await h.sql(
        `select step_id, status, output->>'resumeAt' as resume_at, completed_at from workflow_step_executions
        where execution_id = $1 and step_id = any($2::uuid[]) order by id`,
        [x.id, [wf.steps.send, wf.steps.wait]],
      );
      expect(steps).toMatchObject([
        { step_id: wf.steps.send, status: 'COMPLETED' },
        { step_id: wf.steps.wait, status: 'WAITING', completed_at: null },
      ]);
      expect(new Date(steps[1].resume_at).getTime() - new Date(x.updated_at).getTime()).toBe(86_400_000);
      const [mail] = await h.sql(`select id, status, to_email, subject from emails where workflow_execution_id = $1`, [
        x.id,
      ]);
      expect(mail).toMatchObject({ status: 'PENDING', to_email: `b${i + 1}@example.test`, subject: 'Hello batch' });
      mails.push(mail.id);
    }
    // One emails:send-batch job for the three mails, ahead of bulk mail; no emails:send job each.
    const batches = await sendJobsOf('emails:send-batch', mails);
    expect(batches).toHaveLength(1);
    expect(batches[0].payload.emailIds).toEqual(mails);
    expect(batches[0].priority).toBe(-2);
    expect(await sendJobsOf('emails:send', mails)).toEqual([]);

    // The job run again (a retry): nothing new starts or is sent.
    await dispatchEvents(h.deps, events);
    expect(
      (await h.sql(`select count(*)::int as n from workflow_executions where workflow_id = $1`, [wf.id]))[0].n,
    ).toBe(3);
    expect(
      (
        await h.sql(
          `select count(*)::int as n from emails e join workflow_executions x on x.id = e.workflow_execution_id
      where x.workflow_id = $1`,
          [wf.id],
        )
      )[0].n,
    ).toBe(3);
    expect(await sendJobsOf('emails:send-batch', mails)).toHaveLength(1);
  });

  it('when one start of a batch fails the others still run, each in its own transaction; the failing one is left to its step job', async () => {
    const wf = await mailThenDelay('batch-boom', 'batch-explodes');
    const { contacts, events } = await trackAll(
      ['ok1@example.test', 'boom-batch@example.test', 'ok2@example.test'],
      'batch-boom',
    );
    // A database error for the second contact's mail only: inserting its row fails.
    await withTrigger(
      'insert on emails',
      `begin if new.to_email = 'boom-batch@example.test' then raise exception 'batch test: this insert fails'; end if; return new; end`,
      async () => {
        await dispatchEvents(h.deps, events);
      },
    );

    await expectRanAlone(wf, [contacts[0], contacts[2]], contacts[1]);
  });

  it('when a wait of a batch finds its step already recorded, the batch is rolled back whole and each start runs alone', async () => {
    const wf = await mailThenDelay('batch-recorded', 'Hello again');
    const { contacts, events } = await trackAll(
      ['rec1@example.test', 'rec-skip@example.test', 'rec3@example.test'],
      'batch-recorded',
    );
    // The second contact's WAITING record is not written (as if a first run had written it): the
    // batch's count of recorded waits falls short, and so does the second contact's run alone.
    await withTrigger(
      'insert on workflow_step_executions',
      `begin if new.status = 'WAITING' and exists (select 1 from workflow_executions x join contacts c on c.id = x.contact_id
        where x.id = new.execution_id and c.email = 'rec-skip@example.test') then return null; end if; return new; end`,
      async () => {
        await dispatchEvents(h.deps, events);
      },
    );
    await expectRanAlone(wf, [contacts[0], contacts[2]], contacts[1]);
  });

  it('an event of a batch that cannot be handled does not stop the later ones; the job fails to be retried, and the retry finishes it', async () => {
    const waiter = await api.build(
      'batch-pause',
      {
        hold: ['WAIT_FOR_EVENT', { eventName: 'batch-go' }],
        done: ['UPDATE_CONTACT', { updates: { resumed: true } }],
      },
      [
        ['trigger', 'hold'],
        ['hold', 'done', { waitOutcome: 'EVENT' }],
      ],
    );
    const later = await api.build('batch-later', { mark: ['UPDATE_CONTACT', { updates: { later: true } }] }, [
      ['trigger', 'mark'],
    ]);
    const a = await trackAndDispatch('pause-a@example.test', 'batch-pause');
    const held = await executionOf(waiter.id, a);
    expect(held).toMatchObject({ status: 'WAITING', current_step_id: waiter.steps.hold });
    const {
      events: [go],
    } = await trackAll(['pause-a@example.test'], 'batch-go');
    const {
      contacts: [b],
      events: [next],
    } = await trackAll(['later-b@example.test'], 'batch-later');

    // Resuming the first contact's wait fails (its step record cannot be updated).
    await withTrigger(
      'update on workflow_step_executions',
      `begin if new.execution_id = '${held.id}' then raise exception 'batch test: this resume fails'; end if; return new; end`,
      async () => {
        await expect(dispatchEvents(h.deps, [go, next])).rejects.toMatchObject({
          cause: { message: expect.stringMatching(/this resume fails/) },
        });
      },
    );
    expect(await executionOf(later.id, b)).toMatchObject({ status: 'COMPLETED' });
    expect(await executionOf(waiter.id, a)).toMatchObject({ status: 'WAITING' });

    // The retry resumes the wait and starts nothing twice.
    await dispatchEvents(h.deps, [go, next]);
    expect(await executionOf(waiter.id, a)).toMatchObject({ status: 'COMPLETED' });
    expect(
      (await h.sql(`select count(*)::int as n from workflow_executions where workflow_id = $1`, [later.id]))[0].n,
    ).toBe(1);
  });
  it('a dispatch job takes over the dispatch jobs waiting in the queue; a failed run leaves them queued, counted as an attempt', async () => {
    // The earlier tests' dispatch jobs (their events were dispatched directly) are not this test's.
    await deleteJobsOf(h, 'workflows:dispatch');
    const wf = await mailThenDelay('coalesce-signup', 'Hello together');
    const { contacts } = await trackAll(
      ['co1@example.test', 'co2@example.test', 'co3@example.test'],
      'coalesce-signup',
    );
    const queued = async () =>
      h.sql(`select id::text, payload, attempts, locked_at, last_error, run_at from ${JOBS} j
      where task_identifier = 'workflows:dispatch' order by id`);
    const jobs = await queued();
    expect(jobs).toHaveLength(3);
    const run = () => workflowDispatchJob.run(h.deps, jobs[0].payload, { job: { id: jobs[0].id } } as JobHelpers);

    // Every start fails: the run fails, and the two jobs it took are back in the queue.
    await withTrigger(
      'insert on workflow_executions',
      `begin raise exception 'coalesce test: no execution can start'; end`,
      async () => {
        await expect(run()).rejects.toMatchObject({
          cause: { message: expect.stringMatching(/no execution can start/) },
        });
      },
    );
    // Counted as an attempt (so no other run takes them over again), still runnable at once.
    const after = await queued();
    expect(after.map(({ id, attempts, locked_at }) => ({ id, attempts, locked_at }))).toEqual([
      { id: jobs[0].id, attempts: 0, locked_at: null },
      { id: jobs[1].id, attempts: 1, locked_at: null },
      { id: jobs[2].id, attempts: 1, locked_at: null },
    ]);
    expect(after[1].last_error).toMatch(new RegExp(`^Taken over by dispatch job ${jobs[0].id}, which failed: .*`));
    expect(after[1].run_at.getTime()).toBeLessThanOrEqual(Date.now());
    expect(
      (await h.sql(`select count(*)::int as n from workflow_executions where workflow_id = $1`, [wf.id]))[0].n,
    ).toBe(0);
    // Taken over no more: the next run of the first job dispatches its own event only.
    await run();
    expect(await executionOf(wf.id, contacts[0])).toMatchObject({ status: 'WAITING', current_step_id: wf.steps.wait });
    expect(
      (await h.sql(`select count(*)::int as n from workflow_executions where workflow_id = $1`, [wf.id]))[0].n,
    ).toBe(1);
    expect((await queued()).map((j) => j.id)).toEqual(jobs.map((j) => j.id));

    // As if never attempted, they are taken over again, and this run succeeds: the other two
    // contacts' executions start in it, their mails share one batch job, and the two jobs it took
    // are gone (its own is Graphile's to complete).
    await setAttempts(h, [jobs[1].id, jobs[2].id], 0);
    await run();
    for (const contactId of contacts)
      expect(await executionOf(wf.id, contactId)).toMatchObject({ status: 'WAITING', current_step_id: wf.steps.wait });
    const mails = (
      await h.sql(
        `select e.id from emails e join workflow_executions x on x.id = e.workflow_execution_id
      where x.workflow_id = $1 and x.contact_id = any($2::uuid[]) order by e.id`,
        [wf.id, contacts.slice(1)],
      )
    ).map((m) => m.id);
    expect(mails).toHaveLength(2);
    expect(await sendJobsOf('emails:send-batch', mails)).toHaveLength(1);
    expect((await queued()).map((j) => j.id)).toEqual([jobs[0].id]);
  });
});
