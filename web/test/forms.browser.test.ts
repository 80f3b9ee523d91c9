import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';
import { checkBothSizes, checkScreen, copyWith, type PageProblems } from './support/browser.js';
import { startDashboard, waitForMail, type Dashboard } from './support/dashboard.js';

/**
 * The Forms screen in real Chromium against the real server: empty, a form built (fields added,
 * moved and removed, a topic picked), its embed snippet and hosted page shown, the hosted page filled
 * in by a visitor (no script, axe clean at both widths; a refused address shown at the form), the
 * submission counted in the list; then with double opt-in, the visitor's "check your inbox" page, the
 * mailed link and the confirmation page.
 */
describe('dashboard: forms', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  let formId = '';
  const inApp = (path: string) => `/app/p/${p.id}${path}`;

  beforeAll(async () => {
    d = await startDashboard();
    // The visitor's address must have a mail server (the form checks it like /v1/verify).
    d.dns.set('birds.test', { MX: [{ exchange: 'mx.birds.test', priority: 10 }] });
    p = await createProject(d.h, await createVerifiedUser(d.h), 'Birdseed Weekly');
    const t = await d.h.request('POST', '/topics', {
      key: p.secretKey,
      body: { name: 'Product news', default: 'opt-in' },
    });
    expect(t.status).toBe(201);
    let context;
    ({ context, page, problems } = await d.open());
    await context.addCookies([{ name: 'session', value: p.owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('starts empty, then builds a form: fields added, moved and removed, a topic picked', async () => {
    await page.goto(inApp('/forms'));
    await page.getByTestId('empty-state').getByText('No forms yet').waitFor();
    await checkScreen(page, 'f1-forms-empty');
    await page.getByRole('link', { name: 'New form' }).first().click();
    await page.getByRole('heading', { name: 'New form' }).waitFor();
    await page.getByRole('textbox', { name: 'Name' }).fill('Weekly digest');

    const field = (i: number) => page.getByTestId(`field-${i}`);
    for (const label of ['First name', 'Role', 'Remove me']) {
      await page.getByRole('button', { name: 'Add field' }).click();
      const n = await page.locator('[data-testid^="field-"]').count();
      await field(n - 1)
        .getByRole('textbox', { name: 'Label' })
        .fill(label);
    }
    // The key follows the label until it is edited.
    expect(await field(1).getByRole('textbox', { name: 'Key' }).inputValue()).toBe('firstName');
    await field(1).getByRole('checkbox', { name: 'Required' }).check();
    await field(2).getByRole('combobox', { name: 'Type' }).selectOption('select');
    const options = field(2).getByRole('combobox', { name: 'Options' });
    for (const o of ['Developer', 'Designer']) {
      await options.fill(o);
      await options.press('Enter');
    }
    await page.getByRole('button', { name: 'Remove Remove me' }).click();
    await page.getByRole('button', { name: 'Move Role up' }).click();
    expect(await field(1).getByRole('textbox', { name: 'Label' }).inputValue()).toBe('Role');

    await page.getByRole('combobox', { name: 'Topics' }).click();
    await page.getByRole('option', { name: 'Product news' }).click();
    await page.keyboard.press('Escape');
    await checkBothSizes(page, 'f2-form-builder');

    await page.getByRole('button', { name: 'Create form' }).click();
    await page.getByRole('heading', { name: 'Weekly digest' }).waitFor();
    formId = page.url().split('/').pop()!;
    const [row] = await d.h.sql('select name, fields, double_opt_in from forms where id = $1', [formId]);
    expect(row).toEqual({
      name: 'Weekly digest',
      double_opt_in: false,
      fields: [
        { key: 'email', label: 'Email', type: 'email', required: true },
        { key: 'role', label: 'Role', type: 'select', required: false, options: ['Developer', 'Designer'] },
        { key: 'firstName', label: 'First name', type: 'text', required: true },
      ],
    });
    expect(
      await d.h.sql('select t.name from form_topics ft join topics t on t.id = ft.topic_id where ft.form_id = $1', [
        formId,
      ]),
    ).toEqual([{ name: 'Product news' }]);
    expect(problems.errors).toEqual([]);
  }, 90_000);

  it('shows the embed snippet and the hosted page link, and copies the snippet', async () => {
    const snippet = page.getByTestId('embed-snippet');
    await snippet.waitFor();
    const text = await snippet.innerText();
    expect(text).toContain(`<form method="post" action="${d.h.url}/f/${formId}" accept-charset="utf-8">`);
    expect(text.indexOf('name="email"')).toBeLessThan(text.indexOf('name="role"'));
    expect(text.indexOf('name="role"')).toBeLessThan(text.indexOf('name="firstName"'));
    expect(text).toContain('name="_hp"');
    const copied = await copyWith(page, page.getByRole('button', { name: 'Copy embed snippet' }));
    expect(copied).toBe(text);
    await page.getByRole('link', { name: `${d.h.url}/f/${formId}` }).waitFor();
    await checkBothSizes(page, 'f3-form-share');
    expect(problems.errors).toEqual([]);
  }, 60_000);

  it('lets a visitor fill in the hosted page, without script, and counts the sign-up', async () => {
    const visitor = await d.open();
    const v = visitor.page;
    await v.goto(`/f/${formId}`);
    await v.getByRole('heading', { name: 'Weekly digest' }).waitFor();
    await checkBothSizes(v, 'f4-hosted-form');
    // An address whose domain takes no mail: the form again, with what to fix and the values kept.
    await v.getByRole('textbox', { name: 'Email' }).fill('wren@nowhere.test');
    await v.getByRole('textbox', { name: 'First name' }).fill('Wren');
    await v.getByRole('button', { name: 'Sign up' }).click();
    await v.getByRole('alert').getByText('The domain nowhere.test does not exist: check the address.').waitFor();
    await checkScreen(v, 'f4b-hosted-refused');
    await v.getByRole('textbox', { name: 'Email' }).fill('wren@birds.test');
    await v.getByRole('combobox', { name: 'Role' }).selectOption('Designer');
    await v.getByRole('button', { name: 'Sign up' }).click();
    await v.getByRole('heading', { name: 'Thank you' }).waitFor();
    await v.getByText('Thanks for signing up!').waitFor();
    await checkScreen(v, 'f5-hosted-success');
    await visitor.context.close();
    const [c] = await d.h.sql('select id, subscribed, data from contacts where project_id = $1 and email = $2', [
      p.id,
      'wren@birds.test',
    ]);
    expect(c).toMatchObject({ subscribed: true, data: { role: 'Designer', firstName: 'Wren' } });

    await page.goto(inApp('/forms'));
    const row = page.getByRole('row', { name: /Weekly digest/ });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(2).innerText()).toBe('1');
    await checkBothSizes(page, 'f6-forms-list');
    expect(problems.errors).toEqual([]);
  }, 60_000);

  it('with double opt-in, says to check the inbox, mails the link, and confirms in the browser', async () => {
    const { domain } = await createVerifiedDomain(d.h, p.id, { dns: d.dns });
    const on = await d.h.request('PATCH', `/forms/${formId}`, {
      key: p.secretKey,
      body: { doubleOptIn: true, from: `hello@${domain}`, successMessage: 'Welcome to the digest!' },
    });
    expect(on.status, on.text).toBe(200);
    const visitor = await d.open();
    const v = visitor.page;
    await v.goto(`/f/${formId}`);
    await v.getByRole('textbox', { name: 'Email' }).fill('lark@birds.test');
    await v.getByRole('textbox', { name: 'First name' }).fill('Lark');
    await v.getByRole('button', { name: 'Sign up' }).click();
    await v.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await checkBothSizes(v, 'f7-hosted-check-inbox');
    const [mail] = await waitForMail(d, 'lark@birds.test');
    const href = /href="([^"]+)"[^>]*>Confirm my subscription/.exec(String(mail.parsed.html))?.[1];
    expect(href).toBeDefined();
    // Opening the link only asks (scanners open every link); the button confirms.
    await v.goto(href!.replace(/&amp;/g, '&'));
    await v.getByRole('heading', { name: 'Confirm your sign-up' }).waitFor();
    expect((await d.h.sql('select confirmations from forms where id = $1', [formId]))[0].confirmations).toBe(0);
    await checkBothSizes(v, 'f8-hosted-confirm');
    await v.getByRole('button', { name: 'Confirm my subscription' }).click();
    await v.getByRole('heading', { name: 'Sign-up confirmed' }).waitFor();
    await v.getByText('Welcome to the digest!').waitFor();
    await checkBothSizes(v, 'f9-hosted-confirmed');
    await visitor.context.close();
    const [c] = await d.h.sql('select subscribed from contacts where project_id = $1 and email = $2', [
      p.id,
      'lark@birds.test',
    ]);
    expect(c.subscribed).toBe(true);
    expect((await d.h.sql('select confirmations from forms where id = $1', [formId]))[0].confirmations).toBe(1);
  }, 60_000);
});
