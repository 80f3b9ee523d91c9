import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { checkBothSizes } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';
import { workflowEditor } from './support/workflow-editor.js';

/**
 * A workflow's trigger step and branching steps in real Chromium against the real server: a cron
 * schedule said in words in the project's time zone and saved as a SCHEDULE trigger, then a 70/30
 * SPLIT with a step on each branch, its links labelled by branch and share.
 */
describe('dashboard: workflow triggers and splits', () => {
  let d: Dashboard;
  let page: Page;
  let project: TestProject;
  const inApp = (p: string) => `/app/p/${project.id}${p}`;
  const { node, pick, addStep } = workflowEditor(() => page);

  beforeAll(async () => {
    d = await startDashboard();
    project = await createProject(d.h, await createVerifiedUser(d.h), 'Flow shop');
    let context;
    ({ context, page } = await d.open());
    await context.addCookies([{ name: 'session', value: project.owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('starts a workflow on a schedule: the trigger step says the cron in words, in the project time zone', async () => {
    const created = await d.h.request('POST', '/workflows', {
      key: project.secretKey,
      body: { name: 'Monday digest', eventName: 'digest' },
    });
    expect(created.status, created.text).toBe(201);
    await page.goto(inApp(`/workflows/${created.body.id}`));
    await node('Trigger').click();
    const panel = page.getByTestId('step-panel');
    await pick(panel, 'Starts', 'Schedule');
    await panel.getByRole('textbox', { name: 'Schedule (cron)' }).fill('0 9 * * 1');
    await panel.getByTestId('schedule-preview').getByText('Every Monday at 09:00 (UTC)').waitFor();
    await panel.getByRole('button', { name: 'Save step' }).click();
    await expect
      .poll(
        async () =>
          (await d.h.sql('select trigger_type, trigger_config from workflows where id = $1', [created.body.id]))[0],
        {
          timeout: 10_000,
        },
      )
      .toEqual({ trigger_type: 'SCHEDULE', trigger_config: { cron: '0 9 * * 1' } });
    await checkBothSizes(page, 'w9-trigger-schedule');

    // A SPLIT step: a 70/30 share between two branches, each with a link of its own on the graph.
    await page.getByTestId('step-panel').getByRole('button', { name: 'Close' }).click();
    await addStep(
      page.getByRole('button', { name: 'Add a step after Trigger' }),
      'Split',
      'Test group',
      async (dlg) => {
        const shares = dlg.getByRole('textbox', { name: 'Share %' });
        await shares.nth(0).fill('70');
        await shares.nth(1).fill('30');
      },
    );
    for (const [branch, name] of [
      ['A · 70%', 'Offer'],
      ['B · 30%', 'Control'],
    ])
      await addStep(
        page.getByRole('button', { name: `Add a step after Test group (${branch})` }),
        'Exit',
        name,
        async () => {},
      );
    await node('Control').waitFor();
    const split = await d.h.sql(
      `select f.config, string_agg(tr.branch || ' -> ' || t.name, ', ' order by tr.branch) as links
       from workflow_steps f join workflow_transitions tr on tr.from_step_id = f.id join workflow_steps t on t.id = tr.to_step_id
       where f.workflow_id = $1 and f.type = 'SPLIT' group by f.config`,
      [created.body.id],
    );
    expect(split).toEqual([
      {
        config: {
          branches: [
            expect.objectContaining({ key: 'A', weight: 70 }),
            expect.objectContaining({ key: 'B', weight: 30 }),
          ],
        },
        links: 'A -> Offer, B -> Control',
      },
    ]);
    await checkBothSizes(page, 'w10-split');
  }, 60_000);
});
