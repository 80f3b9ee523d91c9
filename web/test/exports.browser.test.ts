import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { checkBothSizes, checkScreen, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

/**
 * Data protection in real Chromium against the real server (worker included): a contacts export
 * followed to done and downloaded, a contact's data downloaded then the contact erased from its page
 * after typing its address, and the project's data retention saved.
 */
describe('dashboard: exports, erasure, retention', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  const inApp = (path: string) => `/app/p/${p.id}${path}`;

  beforeAll(async () => {
    d = await startDashboard();
    p = await createProject(d.h, await createVerifiedUser(d.h), 'Export shop');
    await d.h.sql(
      `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
       select gen_random_uuid(), $1, 'fan' || i || '@exports-ui.test', true, jsonb_build_object('n', i), now(), now()
       from generate_series(1, 2500) i`,
      [p.id],
    );
    let context;
    ({ context, page, problems } = await d.open());
    await context.addCookies([{ name: 'session', value: p.owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('starts a contacts export, follows it to done and downloads the file', async () => {
    await page.goto(inApp('/exports'));
    await page.getByTestId('empty-state').getByText('No exports yet').waitFor();
    await checkScreen(page, 'x1-exports-empty');
    // The format switch: JSON Lines, then back to CSV (Mantine's segmented control: the label takes the click).
    await page.getByText('JSON Lines', { exact: true }).click();
    expect(await page.getByRole('radio', { name: 'JSON Lines' }).isChecked()).toBe(true);
    await page.getByText('CSV', { exact: true }).click();
    expect(await page.getByRole('radio', { name: 'CSV' }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Start export' }).click();
    const row = page.getByTestId('export-row').first();
    await row.getByText('Contacts as CSV').waitFor();
    await row.getByText(/Ready: 2,500 rows, kept until/).waitFor({ timeout: 30_000 });
    await checkBothSizes(page, 'x2-exports-done');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('link', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^pigeon-contacts-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('id,email,subscribed,createdAt,updatedAt,data');
    expect(lines).toHaveLength(2501);
    expect(problems.errors).toEqual([]);
  }, 90_000);

  it("downloads a contact's data, then erases the contact after its address is typed", async () => {
    const [c] = await d.h.sql(
      `select id, email from contacts where project_id = $1 and email = 'fan7@exports-ui.test'`,
      [p.id],
    );
    await page.goto(inApp(`/contacts/${c.id}`));
    await page.getByRole('heading', { name: c.email }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download data' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('contact-fan7@exports-ui.test.json');
    const doc = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(doc.contact).toMatchObject({ id: c.id, email: c.email, data: { n: 7 } });

    await page.getByRole('button', { name: 'Erase contact' }).click();
    const dialog = page.getByRole('dialog', { name: `Erase ${c.email}?` });
    await dialog.getByText('This cannot be undone').waitFor();
    const confirm = dialog.getByRole('button', { name: 'Erase for good' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox').fill(c.email);
    await checkScreen(page, 'x3-erase-confirm');
    await confirm.click();
    await page.waitForURL(new RegExp(`/app/p/${p.id}/contacts$`));
    expect(await d.h.sql(`select 1 from contacts where id = $1`, [c.id])).toEqual([]);
    const audit = await d.h.sql(
      `select action, target_id from audit_log where project_id = $1 and action = 'contact.erase'`,
      [p.id],
    );
    expect(audit).toEqual([{ action: 'contact.erase', target_id: c.id }]);
    expect(problems.errors).toEqual([]);
  }, 60_000);

  it('saves the data retention: events 30 days, email contents forever, emails 365 days', async () => {
    await page.goto(inApp('/settings/retention'));
    await page.getByRole('heading', { name: 'Data retention' }).waitFor();
    const events = page.getByRole('textbox', { name: /Events: days to keep/ });
    const emails = page.getByRole('textbox', { name: /^Emails: days to keep/ });
    const forever = page.getByRole('checkbox', { name: 'Keep forever' });
    expect(await forever.count()).toBe(3);
    await forever.nth(0).uncheck();
    await events.fill('30');
    await forever.nth(2).uncheck();
    await emails.fill('365');
    await checkBothSizes(page, 'x4-retention');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText('Data retention saved. It applies from tonight.').waitFor();
    expect(await d.h.sql(`select retention from projects where id = $1`, [p.id])).toEqual([
      { retention: { eventsDays: 30, emailsDays: 365 } },
    ]);
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
