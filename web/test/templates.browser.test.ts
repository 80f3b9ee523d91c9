import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createVerifiedDomain, type TestDomain } from '../../test/sending-fixtures.js';
import { checkBothSizes, checkScreen, copyWith, type PageProblems } from './support/browser.js';
import { startDashboard, waitForMail, type Dashboard } from './support/dashboard.js';

/**
 * Templates in real Chromium against the real server and worker: a verified owner with a verified
 * domain writes a template in the CodeMirror editor, sees the server's rendering with a sample
 * contact's data, saves it, sends a test to itself (the SMTP sink gets it; no contact is added), picks
 * variables, is warned of a misspelt one, copies the `/v1/send` command, is asked before leaving
 * unsaved changes, meets a syntax error with its line and column, and is told why a template that an enabled workflow sends cannot be deleted.
 */
describe('dashboard: templates', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  let domain: TestDomain;
  let templateId = '';
  const inApp = (path: string) => `/app/p/${p.id}${path}`;
  const editor = () => page.locator('.cm-content');
  const frameText = () => page.frameLocator('[data-testid="preview-frame"]').locator('body').innerText();

  /** Replaces the editor's text by typing, as a person would. */
  async function typeBody(text: string) {
    await editor().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type(text);
  }

  beforeAll(async () => {
    d = await startDashboard();
    const owner = await createVerifiedUser(d.h);
    p = await createProject(d.h, owner, 'Template shop');
    domain = await createVerifiedDomain(d.h, p.id, { dns: d.dns });
    const c = await d.h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'ada@rcpt.test', data: { firstName: 'Ada' } },
    });
    expect(c.status).toBeLessThan(300);
    ({ page, problems } = await d.open());
    await page.goto('/app/login');
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(owner.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`**${inApp('')}`);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('starts with an empty list that says what to do', async () => {
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Templates' }).click();
    await page.waitForURL(`**${inApp('/templates')}`);
    await page.getByTestId('empty-state').getByText('No template yet').waitFor();
    await checkScreen(page, 't1-templates-empty');
  }, 60_000);

  it('writes a template in the editor and previews it, rendered by the server with a sample contact', async () => {
    await page.getByTestId('empty-state').getByRole('link', { name: 'New template' }).click();
    await page.waitForURL(`**${inApp('/templates/new')}`);
    await editor().waitFor();
    // Refused before sending: the required fields are named.
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByText('Name is required').waitFor();
    expect(await d.h.sql('select 1 from templates where project_id = $1', [p.id])).toEqual([]);

    await page.getByRole('textbox', { name: 'Template name' }).fill('Welcome');
    await page.getByRole('textbox', { name: 'From address' }).fill(`hello@${domain.domain}`);
    await page.getByRole('textbox', { name: 'Subject' }).fill('Hello {{firstName ?? "there"}}');
    await typeBody('<p>Hi {{firstName ?? "friend"}}, this went to {{email}}.</p>');
    await expect.poll(frameText, { timeout: 10_000 }).toBe('Hi friend, this went to contact@example.com.');
    await expect.poll(() => page.getByTestId('preview-subject').innerText()).toBe('Subject: Hello there');

    // The sample contact is searched on the server; its data fills the variables.
    const picker = page.getByRole('combobox', { name: 'Sample contact' });
    await picker.fill('ada');
    await page.getByRole('option', { name: 'ada@rcpt.test' }).click();
    await expect.poll(frameText, { timeout: 10_000 }).toBe('Hi Ada, this went to ada@rcpt.test.');
    await expect.poll(() => page.getByTestId('preview-subject').innerText()).toBe('Subject: Hello Ada');
    expect(await page.getByTestId('preview-frame').getAttribute('sandbox')).toBe('');
    await checkScreen(page, 't2-template-new');
  }, 60_000);

  it('saves it: the row holds what was typed', async () => {
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(/\/templates\/[0-9a-f-]{36}$/);
    templateId = new URL(page.url()).pathname.split('/').pop()!;
    const [row] = await d.h.sql(
      'select name, subject, body, "from", type from templates where id = $1 and project_id = $2',
      [templateId, p.id],
    );
    expect(row).toEqual({
      name: 'Welcome',
      subject: 'Hello {{firstName ?? "there"}}',
      body: '<p>Hi {{firstName ?? "friend"}}, this went to {{email}}.</p>',
      from: `hello@${domain.domain}`,
      type: 'TRANSACTIONAL',
    });
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
  }, 60_000);

  it('sends a test to the signed-in owner: the SMTP sink receives it rendered for that address', async () => {
    // The test goes to the signed-in user unless another address is typed (issue 38).
    await page.getByRole('button', { name: 'Send test', exact: true }).click();
    await page.getByRole('button', { name: 'Send test to me' }).click();
    await page.getByText(`Test sent to ${p.owner.email}`).waitFor();
    // The sign-up's verification mail went to the same address first.
    const mails = await waitForMail(d, p.owner.email, 2);
    const mail = mails.find((m) => m.parsed.subject?.startsWith('[TEST]'))!;
    expect(mail.parsed.subject).toBe('[TEST] Hello there');
    expect(mail.parsed.html).toContain(`Hi friend, this went to ${p.owner.email}.`);
    expect(mail.parsed.from?.value[0].address).toBe(`hello@${domain.domain}`);
    // The owner is not made a contact of the project by testing.
    expect(await d.h.sql('select email from contacts where project_id = $1', [p.id])).toEqual([
      { email: 'ada@rcpt.test' },
    ]);
    await checkScreen(page, 't3-template-saved');
  }, 60_000);

  it('inserts picked variables at the cursor, flags a misspelt one, and copies the /v1/send command', async () => {
    await typeBody('<p>Hi </p>');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    const pick = async (name: string) => {
      await page.getByRole('button', { name: 'Insert variable' }).click();
      await page.getByRole('menuitem', { name: new RegExp(`^\\{\\{${name}\\}\\}`) }).click();
      await page.getByTestId('variable-menu').waitFor({ state: 'hidden' });
    };
    // From the fields inventory (Ada's data), then a reserved one: each lands where the cursor was.
    await pick('firstName');
    await page.keyboard.type(', ');
    await pick('unsubscribeUrl');
    expect(await editor().innerText()).toBe('<p>Hi {{firstName}}, {{unsubscribeUrl}}</p>');

    await page.keyboard.type(' <a href="{{unsubscribe_url}}">out</a>');
    const warning = page.getByTestId('unknown-variables');
    await expect
      .poll(() => warning.innerText().catch(() => ''), { timeout: 10_000 })
      .toContain('{{unsubscribe_url}} — did you mean unsubscribeUrl?');
    expect(await warning.innerText()).not.toContain('{{firstName}}');

    const command = await copyWith(page, page.getByRole('button', { name: 'Copy the send command' }));
    expect(command).toContain('/v1/send');
    expect(command).toContain(`"template":"${templateId}"`);
    expect(command).toContain('"data":{');
    expect(await page.getByTestId('template-id').innerText()).toBe(templateId);
    await checkBothSizes(page, 't3b-template-variables', () => warning.waitFor());
  }, 60_000);

  it('asks before leaving unsaved changes, inside the dashboard and when the tab goes', async () => {
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Templates' }).click();
    const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
    await dialog.waitFor();
    await checkScreen(page, 't3c-template-leave');
    await dialog.getByRole('button', { name: 'Stay and keep editing' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(new URL(page.url()).pathname).toBe(inApp(`/templates/${templateId}`));
    expect(await editor().innerText()).toContain('{{unsubscribe_url}}');
    // Reloading asks the browser's own question; accepted, the saved template comes back.
    const asked = page.waitForEvent('dialog');
    const reload = page.reload();
    const question = await asked;
    expect(question.type()).toBe('beforeunload');
    await question.accept();
    await reload;
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    await expect.poll(() => editor().innerText()).toContain('this went to');
  }, 60_000);

  it("shows a syntax error with its line and column, and the server's refusal next to the body", async () => {
    await typeBody('<p>Fine</p>\n<p>Hi {{firstName</p>');
    const note = page.getByTestId('syntax-error');
    await note.waitFor({ timeout: 10_000 });
    expect(await note.innerText()).toMatch(/Line 2, column \d+ of the body/);
    // The server refuses the save (422): the text stays in the editor, the row keeps the last good body.
    const refused = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/templates/'));
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect((await refused).status()).toBe(422);
    expect(await editor().innerText()).toContain('Hi {{firstName');
    expect(await editor().getAttribute('aria-invalid')).toBe('true');
    expect((await d.h.sql('select body from templates where id = $1', [templateId]))[0].body).toContain('this went to');
    // The server's field error lands at its field: a broken subject is named under the Subject input.
    await typeBody('<p>Fine again</p>');
    const subject = page.getByRole('textbox', { name: 'Subject' });
    await subject.fill('Hello {% if x %}');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page
      .locator(`#${await subject.getAttribute('id')}-error`)
      .getByText(/line 1, column \d+/)
      .waitFor();
    expect(await subject.inputValue()).toBe('Hello {% if x %}');
    await checkScreen(page, 't4-template-syntax-error');
  }, 60_000);

  it('lists, filters and searches templates, and duplicates one', async () => {
    // The editor still holds the refused edits: the browser asks before the page goes.
    page.once('dialog', (q) => void q.accept());
    await page.goto(inApp('/templates'));
    const row = page.locator('tr[data-row="Welcome"]');
    await row.waitFor();
    await row.getByRole('button', { name: 'Duplicate Welcome' }).click();
    await page.waitForURL(/\/templates\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Welcome (copy)' }).waitFor();
    expect(await d.h.sql('select name from templates where project_id = $1 order by name', [p.id])).toEqual([
      { name: 'Welcome' },
      { name: 'Welcome (copy)' },
    ]);

    await page.goto(inApp('/templates'));
    await page.locator('tr[data-row="Welcome (copy)"]').waitFor();
    await page.getByText('Marketing', { exact: true }).click();
    await page.getByText('No template matches').waitFor();
    await page.getByText('Transactional', { exact: true }).first().click();
    await page.locator('tr[data-row="Welcome"]').waitFor();
    await page.getByRole('textbox', { name: 'Search templates' }).fill('copy');
    await expect.poll(() => page.locator('tr[data-row]').count()).toBe(1);
    await page.locator('tr[data-row="Welcome (copy)"]').waitFor();
    await checkScreen(page, 't5-templates-list');
  }, 60_000);

  it('explains a 409 when an enabled workflow sends the template, listing where it is used', async () => {
    const req = (method: string, path: string, body?: unknown) => d.h.request(method, path, { key: p.secretKey, body });
    const wf = await req('POST', '/workflows', { name: 'Onboarding', eventName: 'signed-up' });
    expect(wf.status).toBe(201);
    const step = await req('POST', `/workflows/${wf.body.id}/steps`, {
      type: 'SEND_EMAIL',
      name: 'Welcome mail',
      config: { templateId },
    });
    expect(step.status).toBe(201);
    expect(
      (
        await req('POST', `/workflows/${wf.body.id}/transitions`, {
          fromStepId: wf.body.steps[0].id,
          toStepId: step.body.id,
        })
      ).status,
    ).toBe(201);
    expect((await req('PATCH', `/workflows/${wf.body.id}`, { enabled: true })).status).toBe(200);

    await page.getByRole('textbox', { name: 'Search templates' }).fill('');
    const row = page.locator('tr[data-row="Welcome"]');
    await row.waitFor();
    await row.getByRole('button', { name: 'Delete Welcome' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('template-usage').getByText('Onboarding').waitFor();
    await dialog.getByRole('button', { name: 'Delete template' }).click();
    const alert = dialog.getByRole('alert');
    await alert.getByText(/used by enabled workflow/).waitFor();
    // Codes and the request id wait behind "Details", for whoever reports the problem.
    expect(await alert.getByTestId('request-id').count()).toBe(0);
    await alert.getByRole('button', { name: 'Details' }).click();
    expect(await alert.getByTestId('request-id').textContent()).toMatch(/^[0-9a-f-]{36}$/);
    expect(await dialog.getByTestId('template-usage').innerText()).toContain('Welcome mail');
    expect(await d.h.sql('select 1 from templates where id = $1', [templateId])).toHaveLength(1);
    await checkScreen(page, 't6-template-delete-in-use');

    // The copy is used nowhere: it goes.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('tr[data-row="Welcome (copy)"]').getByRole('button', { name: 'Delete Welcome (copy)' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete template' }).click();
    await page.locator('tr[data-row="Welcome (copy)"]').waitFor({ state: 'detached' });
    expect(await d.h.sql('select name from templates where project_id = $1', [p.id])).toEqual([{ name: 'Welcome' }]);
    expect(problems.errors).toEqual([]);
  }, 60_000);

  it('sends marketing mail under a topic: the picker is off for transactional mail, a reload keeps the topic', async () => {
    const topic = await d.h.request('POST', '/topics', {
      key: p.secretKey,
      body: { name: 'Product news', default: 'opt-out' },
    });
    expect(topic.status).toBe(201);
    await page.goto(inApp(`/templates/${templateId}`));
    const picker = page.getByRole('combobox', { name: 'Topic', exact: true });
    await page.getByText('Transactional mail ignores topics: it goes to everyone it is sent to.').waitFor();
    expect(await picker.isDisabled()).toBe(true);
    await page.getByRole('combobox', { name: 'Type', exact: true }).click();
    await page.getByRole('option', { name: /^Marketing/ }).click();
    await expect.poll(() => picker.isDisabled(), { timeout: 15_000 }).toBe(false);
    expect(await picker.getAttribute('placeholder')).toBe('No topic: everyone subscribed');
    await picker.click();
    await page.getByRole('option', { name: 'Product news', exact: true }).click();
    await checkBothSizes(page, 't7-template-topic');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Template saved.').waitFor();
    expect(await d.h.sql('select type, topic_id from templates where id = $1', [templateId])).toEqual([
      { type: 'MARKETING', topic_id: topic.body.id },
    ]);
    await page.reload();
    await expect
      .poll(() => page.getByRole('combobox', { name: 'Topic', exact: true }).inputValue(), { timeout: 15_000 })
      .toBe('Product news');
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
