import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createTemplate, createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { checkBothSizes, checkScreen, type PageProblems } from './support/browser.js';
import { startDashboard, waitForMail, type Dashboard } from './support/dashboard.js';
import { workflowEditor } from './support/workflow-editor.js';

/**
 * The workflow editor in real Chromium against the real server and worker: build trigger `signup` →
 * SEND_EMAIL → DELAY → CONDITION on data.plan → two SEND_EMAIL branches in the editor, insert and
 * splice-delete a step, have a cycle refused and shown, enable it, track two contacts, bring the
 * delay forward, see each contact get its branch's mail and the execution's path on the graph and
 * its figures with "Show stats", cancel executions one by one and all at once, and delete the
 * workflow. Schedules and SPLIT steps: workflow-triggers.browser.test.ts.
 */
describe('dashboard: workflows', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let project: TestProject;
  let workflowId = '';
  const contacts: Record<string, string> = {};

  const inApp = (p: string) => `/app/p/${project.id}${p}`;
  const { node, edge, pick, addStep } = workflowEditor(() => page);
  /** The graph in the database: `from -> to (branch)` by step names. */
  const links = async () =>
    (
      await d.h.sql<{ link: string }>(
        `
    select f.name || ' -> ' || t.name || coalesce(' (' || coalesce(tr.branch, lower(tr.wait_outcome)) || ')', '') as link
    from workflow_transitions tr join workflow_steps f on f.id = tr.from_step_id join workflow_steps t on t.id = tr.to_step_id
    where tr.workflow_id = $1 order by 1`,
        [workflowId],
      )
    ).map((r) => r.link);
  const statusOf = async (contactId: string) =>
    (
      await d.h.sql<{ status: string; id: string; current_step_id: string }>(
        'select id, status, current_step_id from workflow_executions where workflow_id = $1 and contact_id = $2',
        [workflowId, contactId],
      )
    )[0];
  const track = async (email: string, data: Record<string, unknown>) => {
    const res = await d.h.request('POST', '/v1/track', {
      key: project.publicKey,
      body: { email, event: 'signup', data },
    });
    expect(res.status, res.text).toBe(200);
    contacts[email] = res.body.data.contact;
    return res.body.data.contact as string;
  };
  const waitingAtDelay = (contactId: string) =>
    eventually(
      async () => {
        const e = await statusOf(contactId);
        return e?.status === 'WAITING' ? e : undefined;
      },
      20_000,
      `execution of ${contactId} waiting`,
    );

  beforeAll(async () => {
    d = await startDashboard();
    project = await createProject(d.h, await createVerifiedUser(d.h), 'Flow shop');
    const { domain } = await createVerifiedDomain(d.h, project.id);
    for (const [name, subject] of [
      ['Welcome', 'Welcome aboard'],
      ['Pro tips', 'Pro tips for you'],
      ['Upgrade', 'Time to upgrade'],
    ]) {
      await createTemplate(d.h, project.id, {
        name,
        subject,
        body: `<p>${subject}</p><p><a href="https://flow.test/${name === 'Welcome' ? 'start' : 'more'}">Go</a></p>`,
        from: `flow@${domain}`,
        type: 'TRANSACTIONAL',
      });
    }
    const seats = await d.h.request('POST', '/contacts', {
      key: project.secretKey,
      body: { email: 'zed@example.test', data: { seats: 3 } },
    });
    expect(seats.status, seats.text).toBe(201);
    let context;
    ({ context, page, problems } = await d.open());
    await context.addCookies([{ name: 'session', value: project.owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('starts empty and creates a workflow with its trigger event', async () => {
    await page.goto(inApp('/workflows'));
    await page.getByTestId('empty-state').getByText('No workflow yet').waitFor();
    await checkScreen(page, 'w1-workflows-empty');
    await page.getByRole('button', { name: 'Create a workflow' }).click();
    const dialog = page.getByRole('dialog', { name: 'New workflow' });
    await dialog.getByRole('button', { name: 'Create workflow' }).click();
    await dialog.getByText('Enter the event that starts it, e.g. signup').waitFor();
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Welcome series');
    await dialog.getByRole('textbox', { name: 'Trigger event' }).fill('signup');
    await dialog.getByRole('button', { name: 'Create workflow' }).click();
    await page.waitForURL(/\/workflows\/[0-9a-f-]{36}$/);
    workflowId = page.url().split('/').pop()!;
    await node('Trigger').getByText('When "signup" is tracked').waitFor();
    const [w] = await d.h.sql('select name, enabled, trigger_config from workflows where id = $1', [workflowId]);
    expect(w).toEqual({ name: 'Welcome series', enabled: false, trigger_config: { eventName: 'signup' } });
    await checkScreen(page, 'w2-editor-new');
  }, 60_000);

  it('builds send → delay → condition on data.plan → a mail per branch in the editor', async () => {
    await addStep(
      page.getByRole('button', { name: 'Add a step after Trigger' }),
      'Send email',
      'Welcome mail',
      async (dlg) => {
        await pick(dlg, 'Template', 'Welcome — Welcome aboard');
      },
    );
    await addStep(
      page.getByRole('button', { name: 'Add a step after Welcome mail' }),
      'Delay',
      'Wait 2 days',
      async (dlg) => {
        await dlg.getByRole('textbox', { name: 'Duration' }).fill('2');
      },
    );
    // The condition's value is checked before sending: an empty field is refused at the input.
    await page.getByRole('button', { name: 'Add a step after Wait 2 days' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a step' });
    await pick(dialog, 'Step type', 'Condition');
    await dialog.getByRole('button', { name: 'Add step' }).click();
    await dialog.getByText('Pick or type a field, e.g. data.plan').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    // Gone before the next opener is pressed: a press during its closing transition could be lost.
    await dialog.waitFor({ state: 'hidden' });
    await addStep(
      page.getByRole('button', { name: 'Add a step after Wait 2 days' }),
      'Condition',
      'Is pro?',
      async (dlg) => {
        // A number field offers number comparisons in words, and nothing of text.
        await pick(dlg, 'Field', 'seats');
        await dlg.getByRole('combobox', { name: 'Operator', exact: true }).click();
        expect(await page.getByRole('option').allTextContents()).toEqual([
          'is',
          'is not',
          'is greater than',
          'is less than',
          'is at least',
          'is at most',
          'is set',
          'is not set',
        ]);
        await page.getByRole('option', { name: 'is', exact: true }).click();
        await checkBothSizes(page, 'w3b-condition-operators');
        // No contact has `plan` yet: it is typed as a key.
        await pick(dlg, 'Field', 'Other field…');
        await dlg.getByRole('textbox', { name: 'Field key' }).fill('data.plan');
        await dlg.getByRole('textbox', { name: 'Value' }).fill('pro');
      },
    );
    await addStep(
      page.getByRole('button', { name: 'Add a step after Is pro? (yes)' }),
      'Send email',
      'Pro tips',
      async (dlg) => {
        await pick(dlg, 'Template', 'Pro tips — Pro tips for you');
      },
    );
    await addStep(
      page.getByRole('button', { name: 'Add a step after Is pro? (no)' }),
      'Send email',
      'Upgrade',
      async (dlg) => {
        await pick(dlg, 'Template', 'Upgrade — Time to upgrade');
      },
    );
    expect(await links()).toEqual([
      'Is pro? -> Pro tips (yes)',
      'Is pro? -> Upgrade (no)',
      'Trigger -> Welcome mail',
      'Wait 2 days -> Is pro?',
      'Welcome mail -> Wait 2 days',
    ]);
    const configs = await d.h.sql<{ name: string; config: unknown }>(
      'select name, config from workflow_steps where workflow_id = $1 and type in ($2, $3)',
      [workflowId, 'DELAY', 'CONDITION'],
    );
    expect(Object.fromEntries(configs.map((c) => [c.name, c.config]))).toEqual({
      'Wait 2 days': { amount: 2, unit: 'days' },
      'Is pro?': { field: 'data.plan', operator: 'equals', value: 'pro' },
    });
    await node('Is pro?').getByText('plan is "pro"').waitFor();
    await node('Welcome mail').getByText('Template: Welcome').waitFor();
    expect(await edge('Is pro?', 'Pro tips').textContent()).toContain('yes');
    expect(await edge('Is pro?', 'Upgrade').textContent()).toContain('no');
    await checkScreen(page, 'w3-editor-built');
  }, 90_000);

  it('inserts a step on a link, edits it in the side panel, and deletes it with splice', async () => {
    await addStep(
      page.getByRole('button', { name: 'Insert a step between Trigger and Welcome mail' }),
      'Update contact',
      'Tag source',
      async (dlg) => {
        await dlg.getByRole('button', { name: 'Add key' }).click();
        await dlg.getByRole('textbox', { name: 'Key 1' }).fill('source');
        await dlg.getByRole('textbox', { name: 'Value 1' }).fill('signup');
      },
    );
    expect(await links()).toContain('Trigger -> Tag source');
    expect(await links()).toContain('Tag source -> Welcome mail');
    expect(await links()).not.toContain('Trigger -> Welcome mail');

    await node('Tag source').click();
    const panel = page.getByTestId('step-panel');
    await panel.getByRole('textbox', { name: 'Value 1' }).fill('42');
    await panel.getByRole('button', { name: 'Save step' }).click();
    await expect
      .poll(async () => (await d.h.sql('select config from workflow_steps where name = $1', ['Tag source']))[0].config)
      .toEqual({ updates: { source: 42 }, subscriptionAction: 'none' });
    await node('Tag source').getByText('Set source').waitFor();
    await checkScreen(page, 'w4-step-panel');

    await panel.getByRole('button', { name: 'Delete step' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Tag source?' });
    await confirm.getByText('will lead to Welcome mail instead').waitFor();
    await confirm.getByRole('button', { name: 'Delete step' }).click();
    await node('Tag source').waitFor({ state: 'detached' });
    expect(await links()).toContain('Trigger -> Welcome mail');
    expect(
      (await d.h.sql('select count(*)::int as n from workflow_steps where workflow_id = $1', [workflowId]))[0].n,
    ).toBe(6);
  }, 60_000);

  it('refuses a cycle and marks the steps and links of the loop in red', async () => {
    // The keyboard way to open a step: its edit button.
    await page.getByRole('button', { name: 'Edit Upgrade' }).focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('step-panel').getByRole('heading', { name: 'Upgrade' }).waitFor();
    const panel = page.getByTestId('step-panel');
    await pick(panel, 'Connect to', 'Welcome mail');
    await panel.getByRole('button', { name: 'Connect' }).click();
    await page
      .getByRole('alert')
      .getByText('A transition from "Upgrade" to "Welcome mail" would close a cycle')
      .waitFor();
    await node('Welcome mail')
      .getByTestId('node-error')
      .getByText('A transition from "Upgrade" to "Welcome mail" would close a cycle')
      .waitFor();
    const marked = await page
      .locator('[data-testid="step-node"][data-error="true"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-step-name')).sort());
    expect(marked).toEqual(['Is pro?', 'Upgrade', 'Wait 2 days', 'Welcome mail'].sort());
    expect(await edge('Wait 2 days', 'Is pro?').getAttribute('data-error')).toBe('true');
    expect(await edge('Is pro?', 'Pro tips').getAttribute('data-error')).toBeNull();
    expect(await links()).toHaveLength(5);
    await checkScreen(page, 'w5-cycle-refused');
    // Closing the step's panel moves on from the refused change: the banner and the marks go.
    await page.getByTestId('step-panel').getByRole('button', { name: 'Close' }).click();
    await page.getByText('The change breaks a rule of the graph').waitFor({ state: 'detached' });
    expect(await page.locator('[data-testid="step-node"][data-error="true"]').count()).toBe(0);
  }, 60_000);

  it('enabled: each contact gets its branch mail once the delay is brought forward', async () => {
    await page.getByRole('switch', { name: 'Enabled' }).click();
    await expect
      .poll(async () => (await d.h.sql('select enabled from workflows where id = $1', [workflowId]))[0].enabled)
      .toBe(true);
    await page.getByRole('switch', { name: 'Allow re-entry' }).waitFor();

    const ann = await track('ann@example.test', { plan: 'pro' });
    const bob = await track('bob@example.test', { plan: 'free' });
    const [ea, eb] = [await waitingAtDelay(ann), await waitingAtDelay(bob)];
    expect((await waitForMail(d, 'ann@example.test', 1)).map((m) => m.parsed.subject)).toEqual(['Welcome aboard']);
    expect((await waitForMail(d, 'bob@example.test', 1)).map((m) => m.parsed.subject)).toEqual(['Welcome aboard']);
    // Bring the two-day delay forward, as the engine tests do, rather than wait for it.
    for (const e of [ea, eb]) {
      const moved = await d.h.sql(
        'update graphile_worker._private_jobs set run_at = now() where key = $1 returning id',
        [`wf:${e.id}:delay`],
      );
      expect(moved).toHaveLength(1);
    }
    await eventually(
      async () => (await statusOf(ann)).status === 'COMPLETED' && (await statusOf(bob)).status === 'COMPLETED',
      20_000,
      'both completed',
    );
    expect((await waitForMail(d, 'ann@example.test', 2)).map((m) => m.parsed.subject)).toEqual([
      'Welcome aboard',
      'Pro tips for you',
    ]);
    expect((await waitForMail(d, 'bob@example.test', 2)).map((m) => m.parsed.subject)).toEqual([
      'Welcome aboard',
      'Time to upgrade',
    ]);

    // A person clicked the link of ann's welcome mail (a scanner once more, as delivery/outcomes.ts
    // records clicks): the graph's stats and the step's links say so.
    await d.h.sql(
      `with e as (
         update emails set clicked_at = now(), human_clicked_at = now()
         where contact_id = $1 and subject = 'Welcome aboard' returning id, project_id, workflow_step_id)
       insert into email_link_clicks (email_id, project_id, workflow_step_id, position, url, clicks, human_clicks)
       select id, project_id, workflow_step_id, 0, 'https://flow.test/start', 2, 1 from e`,
      [ann],
    );
    await page.getByRole('switch', { name: 'Show stats' }).check();
    const figure = (step: string, key: string) =>
      node(step).locator(`[data-figure="${key}"]`).getAttribute('data-value');
    await expect.poll(() => figure('Welcome mail', 'clicks')).toBe('50 %');
    expect(await figure('Trigger', 'started')).toBe('2');
    expect(await figure('Welcome mail', 'sent')).toBe('2');
    expect(await figure('Wait 2 days', 'completed')).toBe('2');
    expect(await figure('Pro tips', 'entered')).toBe('1');
    await page.getByText('Last 7 days').click();
    await expect.poll(() => figure('Welcome mail', 'entered')).toBe('2');
    await node('Welcome mail').getByRole('button', { name: 'Edit Welcome mail' }).click();
    const links = page.getByTestId('step-links');
    await links.locator('[data-link-position="0"]').getByText('1 person · 1 unique · 2 clicks').waitFor();
    await checkBothSizes(page, 'w4c-graph-stats');
    await links.getByRole('button', { name: 'Click map' }).click();
    const badge = page.frameLocator('[data-testid="click-map-frame"]').locator('[data-click-badge="0"]');
    await expect.poll(() => badge.textContent()).toBe('1');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Close the step panel' }).click();
    await page.getByRole('switch', { name: 'Show stats' }).uncheck();
  }, 90_000);

  it("shows the executions, filters them, and draws one execution's path on the graph", async () => {
    await page.getByRole('tab', { name: 'Executions' }).click();
    await expect.poll(() => page.getByTestId('executions-count').textContent()).toBe('2 executions');
    await pick(page, 'Status', 'WAITING');
    await page.getByTestId('empty-state').getByText('No waiting execution').waitFor();
    await pick(page, 'Status', 'COMPLETED');
    await expect.poll(() => page.getByTestId('executions-count').textContent()).toBe('2 executions');

    // Executions name their contact by address, linked to the contact's page.
    const annLink = page.getByRole('table', { name: 'Executions of this workflow' }).getByRole('link', {
      name: 'ann@example.test',
    });
    expect(await annLink.getAttribute('href')).toBe(inApp(`/contacts/${contacts['ann@example.test']}`));
    await checkBothSizes(page, 'w5b-executions-by-email');
    await page.getByRole('button', { name: 'View the path of ann@example.test' }).click();
    const view = page.getByTestId('execution-view');
    await view.getByRole('heading', { name: 'Execution of ann@example.test' }).waitFor();
    await view.getByTestId('execution-status').getByText('COMPLETED').waitFor();
    await node('Pro tips').waitFor();
    const visited = await page
      .locator('[data-testid="step-node"][data-visited="true"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-step-name')));
    expect(visited.sort()).toEqual(['Is pro?', 'Pro tips', 'Trigger', 'Wait 2 days', 'Welcome mail'].sort());
    expect(await node('Is pro?').getByTestId('run-outcome').textContent()).toBe('yes');
    expect(await node('Upgrade').getAttribute('data-visited')).toBeNull();
    expect(await edge('Is pro?', 'Pro tips').getAttribute('data-visited')).toBe('true');
    expect(await edge('Is pro?', 'Upgrade').getAttribute('data-visited')).toBeNull();
    expect(
      await view
        .getByTestId('execution-steps')
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((t) => t.getAttribute('data-row'))),
    ).toEqual(['Trigger', 'Welcome mail', 'Wait 2 days', 'Is pro?', 'Pro tips']);
    expect(await node('Wait 2 days').getByTestId('run-time').textContent()).toMatch(/\d/);
    await checkScreen(page, 'w6-execution-path');
    await view.getByRole('button', { name: 'Back to the list' }).click();
  }, 60_000);

  it('cancels one waiting execution, then all the others', async () => {
    const ids: string[] = [];
    for (const email of ['cat@example.test', 'dan@example.test', 'eve@example.test'])
      ids.push(await track(email, { plan: 'pro' }));
    for (const id of ids) await waitingAtDelay(id);
    await pick(page, 'Status', 'WAITING');
    await expect
      .poll(() => page.getByTestId('executions-count').textContent(), { timeout: 10_000 })
      .toBe('3 executions');

    await page.getByRole('button', { name: 'Cancel the execution of cat@example.test' }).click();
    await page
      .getByRole('dialog', { name: 'Cancel this execution?' })
      .getByRole('button', { name: 'Cancel execution' })
      .click();
    await expect.poll(async () => (await statusOf(ids[0])).status).toBe('CANCELLED');
    await expect
      .poll(() => page.getByTestId('executions-count').textContent(), { timeout: 10_000 })
      .toBe('2 executions');
    await checkScreen(page, 'w7-executions');

    await page.getByRole('button', { name: 'Cancel all' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel every running execution?' });
    await dialog.getByRole('button', { name: 'Cancel all' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect([(await statusOf(ids[1])).status, (await statusOf(ids[2])).status]).toEqual(['CANCELLED', 'CANCELLED']);
    const jobs = await d.h.sql(`select count(*)::int as n from graphile_worker._private_jobs where key like 'wf:%'`);
    expect(jobs[0].n).toBe(0);
    await page.getByTestId('empty-state').getByText('No waiting execution').waitFor();
  }, 60_000);

  it('sends a step under a topic: off for a transactional template, kept after a reload', async () => {
    const topic = await d.h.request('POST', '/topics', {
      key: project.secretKey,
      body: { name: 'Tips', default: 'opt-in' },
    });
    expect(topic.status).toBe(201);
    const [{ from_email: from }] = await d.h.sql<{ from_email: string }>(
      `select "from" as from_email from templates where project_id = $1 limit 1`,
      [project.id],
    );
    const tpl = await createTemplate(d.h, project.id, {
      name: 'Newsletter',
      subject: 'This week',
      body: '<p>This week</p>',
      from,
      type: 'MARKETING',
    });
    // Loaded afresh, so the template list has the new one.
    await page.goto(inApp(`/workflows/${workflowId}`));
    await page.getByRole('tab', { name: 'Steps' }).click();
    await node('Welcome mail').click();
    const panel = page.getByTestId('step-panel');
    const picker = panel.getByRole('combobox', { name: 'Topic', exact: true });
    // Welcome is a transactional template: topics do not apply.
    await panel.getByText('Transactional mail ignores topics: it goes to everyone it is sent to.').waitFor();
    expect(await picker.isDisabled()).toBe(true);
    await pick(panel, 'Template', 'Newsletter — This week');
    await expect.poll(() => picker.isDisabled(), { timeout: 15_000 }).toBe(false);
    await pick(panel, 'Topic', 'Tips');
    await checkBothSizes(page, 'w7b-step-topic');
    await panel.getByRole('button', { name: 'Save step' }).click();
    await expect
      .poll(
        async () => (await d.h.sql('select config from workflow_steps where name = $1', ['Welcome mail']))[0].config,
      )
      .toEqual({ templateId: tpl, topicId: topic.body.id });
    await page.reload();
    await page.getByRole('tab', { name: 'Steps' }).click();
    await node('Welcome mail').click();
    await expect
      .poll(() => page.getByTestId('step-panel').getByRole('combobox', { name: 'Topic', exact: true }).inputValue(), {
        timeout: 15_000,
      })
      .toBe('Tips');
  }, 60_000);

  it('lists the workflow with its state and executions, and deletes it after confirmation', async () => {
    await page.getByRole('link', { name: 'Workflows' }).first().click();
    const row = page.locator('tr[data-row="Welcome series"]');
    await row.getByText('Enabled').waitFor();
    await row.getByText('signup').waitFor();
    expect(await row.getByTestId('executions').textContent()).toBe('5 total · 0 active');
    await checkScreen(page, 'w8-workflows-list');
    await row.getByRole('button', { name: 'Delete Welcome series' }).click();
    await page
      .getByRole('dialog', { name: 'Delete Welcome series?' })
      .getByRole('button', { name: 'Delete workflow' })
      .click();
    await page.getByTestId('empty-state').getByText('No workflow yet').waitFor();
    expect((await d.h.sql('select count(*)::int as n from workflows where project_id = $1', [project.id]))[0].n).toBe(
      0,
    );
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
