import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createTemplate, createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { setSubscription } from '../contacts/subscription.js';
import { MAX_CAUSATION_DEPTH } from './causation.js';
import { workflowApi } from '../../test/workflows-helpers.js';

// Issue "Hardening" 4: workflows that trigger each other stop at the causation depth limit.
describe('workflow loops are stopped by the causation depth', () => {
  let h: Harness;
  let p: TestProject;
  let api: ReturnType<typeof workflowApi>;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    p = await createProject(h);
    api = workflowApi(h, p);
  });
  afterAll(async () => h?.close());

  /** Waits until no workflow or email job of this database is pending or running. */
  const settled = () =>
    eventually(
      async () => {
        const [r] = await h.sql(
          `select count(*)::int as n from ${JOBS} j where j.task_identifier like 'workflows:%' or j.task_identifier like 'emails:%'`,
        );
        return r.n === 0;
      },
      30_000,
      'the job queue to drain',
    );

  it('A on contact.subscribed unsubscribes, B on contact.unsubscribed resubscribes (allowReentry): the loop ends at the limit with the reason recorded', async () => {
    expect(MAX_CAUSATION_DEPTH).toBe(10);
    const a = await api.build(
      'contact.subscribed',
      { off: ['UPDATE_CONTACT', { subscriptionAction: 'unsubscribe' }] },
      [['trigger', 'off']],
      { allowReentry: true },
    );
    const b = await api.build(
      'contact.unsubscribed',
      { on: ['UPDATE_CONTACT', { subscriptionAction: 'subscribe' }] },
      [['trigger', 'on']],
      { allowReentry: true },
    );
    const contact = await api.track('loop@example.test', 'signed-up');
    // The first event: the contact unsubscribes through /v1/track (contact.unsubscribed, depth 0).
    const first = await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'loop@example.test', event: 'preferences', subscribed: false },
    });
    expect(first.status).toBe(200);

    const stopped = await eventually(
      async () =>
        (await h.sql(`select * from workflow_executions where contact_id = $1 and status = 'EXITED'`, [contact]))[0],
      30_000,
      'the loop to stop',
    );
    await settled();

    // Depth 0 … 10 ran (B at even depths, A at odd ones); the event of depth 11 started nothing.
    const execs = await h.sql(
      `select workflow_id, status, causation_depth, exit_reason from workflow_executions where contact_id = $1 order by causation_depth`,
      [contact],
    );
    expect(execs).toHaveLength(MAX_CAUSATION_DEPTH + 2);
    expect(execs.map((e) => [e.workflow_id === a.id ? 'A' : 'B', e.status, e.causation_depth])).toEqual([
      ...Array.from({ length: MAX_CAUSATION_DEPTH + 1 }, (_, d) => [d % 2 ? 'A' : 'B', 'COMPLETED', d]),
      ['A', 'EXITED', MAX_CAUSATION_DEPTH + 1],
    ]);
    expect(stopped).toMatchObject({
      workflow_id: a.id,
      causation_depth: MAX_CAUSATION_DEPTH + 1,
      current_step_id: a.steps.trigger,
    });
    expect(stopped.exit_reason).toMatch(/^causation depth limit/);
    // The exit reason is in the API's execution too; the refused execution ran no step.
    const detail = await api.req('GET', `/workflows/${a.id}/executions/${stopped.id}`);
    expect(detail.body).toMatchObject({
      status: 'EXITED',
      exitReason: stopped.exit_reason,
      causationDepth: MAX_CAUSATION_DEPTH + 1,
      steps: [],
    });

    const events = await h.sql(
      `select name, causation_depth from events where contact_id = $1 and name like 'contact.%' order by causation_depth`,
      [contact],
    );
    expect(events.map((e) => [e.name, e.causation_depth])).toEqual(
      Array.from({ length: MAX_CAUSATION_DEPTH + 2 }, (_, d) => [
        d % 2 ? 'contact.subscribed' : 'contact.unsubscribed',
        d,
      ]),
    );
    // The last step to run was B's: the contact ends subscribed, and nothing runs any more.
    expect((await h.sql(`select subscribed from contacts where id = $1`, [contact]))[0].subscribed).toBe(true);
    expect(b.id).not.toBe(a.id);
  });

  it('the email.* events of a workflow mail are one level deeper: a workflow on email.sent that sends mail stops too', async () => {
    const q = await createProject(h);
    const qa = workflowApi(h, q);
    const domain = (await createVerifiedDomain(h, q.id)).domain;
    const tpl = await createTemplate(h, q.id, {
      subject: 'Hello',
      body: '<p>hi</p>',
      from: `flow@${domain}`,
      type: 'TRANSACTIONAL',
    });
    const start = await qa.build('go', { mail: ['SEND_EMAIL', { templateId: tpl }] }, [['trigger', 'mail']]);
    const echo = await qa.build('email.sent', { mail: ['SEND_EMAIL', { templateId: tpl }] }, [['trigger', 'mail']], {
      allowReentry: true,
    });
    const contact = await qa.track('echo@example.test', 'go');

    await eventually(
      async () =>
        (await h.sql(`select 1 from workflow_executions where contact_id = $1 and status = 'EXITED'`, [contact]))[0],
      30_000,
      'the loop to stop',
    );
    await settled();
    const execs = await h.sql(
      `select workflow_id, status, causation_depth from workflow_executions where contact_id = $1 order by causation_depth`,
      [contact],
    );
    expect(
      execs.map((e) => [
        e.workflow_id === start.id ? 'start' : e.workflow_id === echo.id ? 'echo' : '?',
        e.status,
        e.causation_depth,
      ]),
    ).toEqual([
      ['start', 'COMPLETED', 0],
      ...Array.from({ length: MAX_CAUSATION_DEPTH }, (_, i) => ['echo', 'COMPLETED', i + 1]),
      ['echo', 'EXITED', MAX_CAUSATION_DEPTH + 1],
    ]);
    const sent = await h.sql(
      `select causation_depth from events where contact_id = $1 and name = 'email.sent' order by causation_depth`,
      [contact],
    );
    expect(sent.map((e) => e.causation_depth)).toEqual(
      Array.from({ length: MAX_CAUSATION_DEPTH + 1 }, (_, i) => i + 1),
    );
    expect((await h.sql(`select count(*)::int as n from emails where contact_id = $1`, [contact]))[0].n).toBe(
      MAX_CAUSATION_DEPTH + 1,
    );

    // A hard bounce of the mail of the depth-3 execution unsubscribes the contact one level deeper (4).
    const [mail] = await h.sql(
      `select m.id from emails m join workflow_executions x on x.id = m.workflow_execution_id
      where x.contact_id = $1 and x.causation_depth = 3`,
      [contact],
    );
    await h.deps.db.transaction((tx) =>
      setSubscription(tx, q.id, [contact], false, new Date(), {
        origin: { source: 'bounce' },
        causedByEmailId: mail.id,
      }),
    );
    const [unsub] = await h.sql(
      `select causation_depth from events where contact_id = $1 and name = 'contact.unsubscribed'`,
      [contact],
    );
    expect(unsub.causation_depth).toBe(4);
  });
});
