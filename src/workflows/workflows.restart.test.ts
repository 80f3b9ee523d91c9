import { afterAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { outboxTo } from '../../test/outbox.js';
import { createTemplate, createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { startWorker } from '../worker/runner.js';
import { workflowApi } from '../../test/workflows-helpers.js';

// A worker stopped while an execution waits in a DELAY step, and another started: the delay survives.
describe('a restart in the middle of a delay', () => {
  let h: Harness;
  afterAll(async () => h?.close());

  it('loses no delay and runs the next step once, on a new worker', async () => {
    // The harness starts no worker here: the test owns both workers, so it can stop the first.
    h = await createHarness();
    let worker = await startWorker(h.deps, 3);
    const p = await createProject(h);
    const api = workflowApi(h, p);
    const domain = (await createVerifiedDomain(h, p.id)).domain;
    const later = await createTemplate(h, p.id, {
      subject: 'Day two',
      body: '<p>2</p>',
      from: `flow@${domain}`,
      type: 'TRANSACTIONAL',
    });
    const wf = await api.build(
      'start',
      { hold: ['DELAY', { amount: 1, unit: 'days' }], send: ['SEND_EMAIL', { templateId: later }] },
      [
        ['trigger', 'hold'],
        ['hold', 'send'],
      ],
    );
    const kim = await api.track('kim@example.test', 'start');
    const e = await api.executionOf(wf.id, kim, 'WAITING', wf.steps.hold);

    await worker.stop();
    worker = await startWorker(h.deps, 3);
    expect(await api.runKeyedJobNow(`wf:${e.id}:delay`)).toBe(1);
    await api.executionOf(wf.id, kim, 'COMPLETED');
    const mails = await eventually(async () => {
      const m = await outboxTo(h.dataDir, 'kim@example.test');
      return m.length ? m : undefined;
    });
    expect(mails.map((m) => m.subject)).toEqual(['Day two']);
    expect(
      (
        await h.sql(
          `select count(*)::int as n from workflow_step_executions where execution_id = $1 and step_id = $2`,
          [e.id, wf.steps.send],
        )
      )[0].n,
    ).toBe(1);
    await worker.stop();
  });
});
