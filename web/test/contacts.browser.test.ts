import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { checkBothSizes, checkScreen, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

const pad = (i: number) => String(i).padStart(4, '0');
/** Data row `i` (1-based) of the CSV: spreadsheet row `i + 1`, the header being row 1. */
const emailOf = (i: number) => `person${pad(i)}@example.com`;
const PLANS = ['free', 'pro', 'team'];
/** Spreadsheet rows with an invalid address. */
const BAD_ROWS = [10, 500];

/** A 1,000-row CSV (plus header): every fourth contact unsubscribed, rows 10 and 500 broken. */
function writeCsv(): string {
  const lines = ['email,firstName,plan,age,subscribed'];
  for (let i = 1; i <= 1000; i++) {
    const email = BAD_ROWS.includes(i + 1) ? `not-an-email-${i}` : emailOf(i);
    lines.push(`${email},Name ${i},${PLANS[i % 3]},${20 + (i % 50)},${i % 4 === 0 ? 'false' : 'true'}`);
  }
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'pigeon-csv-')), 'contacts.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/**
 * The contacts screens in real Chromium against the real server and worker: import a CSV through the
 * page and follow it to 100 %, narrow the list, bulk-unsubscribe, edit one contact's data and
 * subscription and see its tracked event, add a contact, read the fields inventory; another
 * project's contact is "not found".
 */
describe('dashboard: contacts', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let project: TestProject;
  let otherContactId = '';

  const inApp = (p: string) => `/app/p/${project.id}${p}`;
  const rows = () => page.locator('tbody tr[data-row]');
  const rowEmails = () =>
    page.locator('tbody tr[data-row]').evaluateAll((trs) => trs.map((t) => t.getAttribute('data-row')));
  const subscribedInDb = async (emails: string[]) =>
    await d.h.sql<{ email: string; subscribed: boolean }>(
      'select email, subscribed from contacts where project_id = $1 and email = any($2) order by email',
      [project.id, emails],
    );

  beforeAll(async () => {
    d = await startDashboard();
    project = await createProject(d.h, await createVerifiedUser(d.h), 'Contacts shop');
    const other = await createProject(d.h, undefined, 'Someone else');
    const created = await d.h.request('POST', '/contacts', {
      key: other.secretKey,
      body: { email: 'private@example.test' },
    });
    expect(created.status).toBe(201);
    otherContactId = created.body.id;
    let context;
    ({ context, page, problems } = await d.open());
    await context.addCookies([{ name: 'session', value: project.owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('starts empty, saying what to do next', async () => {
    await page.goto(inApp('/contacts'));
    await page.getByTestId('empty-state').getByText('Add a contact or import a CSV').waitFor();
    await checkScreen(page, 'c1-contacts-empty');
  }, 60_000);

  it('imports a 1,000-row CSV through the page: preview, progress to 100 %, counts and the two bad row numbers', async () => {
    await page.getByRole('button', { name: 'Import CSV' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[type=file]').setInputFiles(writeCsv());
    const preview = dialog.getByTestId('import-preview');
    await preview.waitFor();
    expect(await preview.locator('thead th').allTextContents()).toEqual([
      'email',
      'firstName',
      'plan',
      'age',
      'subscribed',
    ]);
    expect(await preview.locator('tbody tr').count()).toBe(5);
    expect(await preview.locator('tbody tr').first().locator('td').first().textContent()).toBe(emailOf(1));

    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    const bar = dialog.getByRole('progressbar', { name: /Importing contacts\.csv/ });
    await bar.waitFor();
    const result = dialog.getByTestId('import-result');
    await result.waitFor({ timeout: 30_000 });
    expect(await bar.getAttribute('aria-valuenow')).toBe('100');
    expect(await dialog.getByText('Done', { exact: true }).count()).toBe(2); // the bar's state and the button
    expect(await result.locator('[data-stat="Created"]').textContent()).toContain('998');
    expect(await result.locator('[data-stat="Failed"]').textContent()).toContain('2');
    const errorRows = await dialog
      .getByTestId('import-errors')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((t) => t.getAttribute('data-error-row')));
    expect(errorRows).toEqual(BAD_ROWS.map(String));
    await dialog.getByText('Invalid email: not-an-email-9').waitFor();
    await checkScreen(page, 'c2-import-done');

    const [{ n }] = await d.h.sql<{ n: number }>('select count(*)::int as n from contacts where project_id = $1', [
      project.id,
    ]);
    expect(n).toBe(998);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByTestId('contacts-count').textContent()).toBe('1–50 of 998 contacts');
    expect(await rows().count()).toBe(50);
    await checkScreen(page, 'c3-contacts-list');
  }, 90_000);

  it('walks pages with the cursor and narrows the list by search and subscription', async () => {
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => page.getByTestId('contacts-count').textContent()).toBe('51–100 of 998 contacts');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => page.getByTestId('contacts-count').textContent()).toBe('1–50 of 998 contacts');

    await page.getByRole('searchbox', { name: 'Search' }).fill('person001');
    await expect.poll(rowEmails).toHaveLength(10);
    expect((await rowEmails()).sort()).toEqual(Array.from({ length: 10 }, (_, k) => emailOf(10 + k)));
    await page.getByTestId('subscribed-filter').getByText('Unsubscribed', { exact: true }).click();
    // Every fourth contact was imported unsubscribed: 12 and 16 among 10..19.
    await expect.poll(async () => (await rowEmails()).sort()).toEqual([emailOf(12), emailOf(16)]);
    expect(await page.getByTestId('contacts-count').textContent()).toBe('1–2 of 2 contacts');

    await page.getByRole('searchbox', { name: 'Search' }).fill('nobody-has-this');
    await page.getByText('No contact matches').waitFor();
  }, 60_000);

  it('unsubscribes 3 selected contacts in bulk: the job reaches done, the database has them unsubscribed', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.getByTestId('subscribed-filter').getByText('Subscribed', { exact: true }).click();
    await page.getByRole('combobox', { name: 'Sort' }).selectOption('email:asc');
    // Two changes in a row both reach the address (the second once overwrote the first under load).
    await expect.poll(() => new URL(page.url()).searchParams.get('subscribed')).toBe('true');
    expect(new URL(page.url()).searchParams.get('sort')).toBe('email:asc');
    const three = [emailOf(1), emailOf(2), emailOf(3)];
    await expect.poll(async () => (await rowEmails()).slice(0, 3)).toEqual(three);
    expect((await subscribedInDb(three)).every((c) => c.subscribed)).toBe(true);

    // Select the page, then narrow the selection to three.
    await page.getByRole('checkbox', { name: 'Select all contacts on this page' }).check();
    await page.getByTestId('bulk-bar').getByText('50 contacts selected').waitFor();
    await page.getByRole('checkbox', { name: 'Select all contacts on this page' }).uncheck();
    for (const e of three) await page.getByRole('checkbox', { name: `Select ${e}` }).check();
    await page.getByTestId('bulk-bar').getByText('3 contacts selected').waitFor();
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    const job = page.getByTestId('bulk-job');
    await job.getByText('Unsubscribing 3 contacts').waitFor();
    await job.getByText('Done', { exact: true }).waitFor({ timeout: 30_000 });
    expect(await job.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    expect((await subscribedInDb(three)).map((c) => c.subscribed)).toEqual([false, false, false]);
    // The list (subscribed only) refreshed without them.
    await expect.poll(async () => (await rowEmails()).slice(0, 1)).toEqual([emailOf(5)]);
    await checkScreen(page, 'c4-bulk-done');
  }, 60_000);

  it('edits a contact: a data key, the subscription, and shows the event tracked for it', async () => {
    const email = emailOf(5);
    const tracked = await d.h.request('POST', '/v1/track', {
      key: project.publicKey,
      body: { email, event: 'viewed-pricing', data: { page: '/pricing' } },
    });
    expect(tracked.status).toBe(200);
    const suppressed = await d.h.request('POST', '/suppressions', {
      key: project.secretKey,
      body: { emails: [email], reason: 'bounce' },
    });
    expect(suppressed.status).toBe(200);
    await page.getByRole('link', { name: email }).click();
    await page.getByRole('heading', { name: email }).waitFor();
    // The address is on the suppression list: the page says why and since when.
    expect(await page.getByTestId('suppression').textContent()).toMatch(
      /^Suppressed Hard bounce on .+: no marketing mail$/,
    );
    const id = new URL(page.url()).pathname.split('/').pop();
    await page.getByTestId('timeline').locator('[data-event="viewed-pricing"]').waitFor();

    const plan = page.getByRole('textbox', { name: 'Value of plan' });
    expect(await plan.inputValue()).toBe(PLANS[5 % 3]);
    await plan.fill('enterprise');
    await page.getByRole('button', { name: 'Add field' }).click();
    // Three columns of the CSV and the key the tracked event stored: the new row is the fifth.
    await page.getByRole('textbox', { name: 'Key of field 5' }).fill('score');
    await page.getByRole('combobox', { name: 'Type of score' }).selectOption('number');
    await page.getByRole('textbox', { name: 'Value of score' }).fill('not a number');
    await page.getByRole('button', { name: 'Save data' }).click();
    await page.getByText('Enter a number, e.g. 42 or 3.5').waitFor();
    await page.getByRole('textbox', { name: 'Value of score' }).fill('42');
    await page.getByRole('button', { name: 'Remove age' }).click();
    await page.getByRole('button', { name: 'Save data' }).click();
    await page.getByText('Data saved.').waitFor();
    const [row] = await d.h.sql('select data, subscribed from contacts where id = $1', [id]);
    expect(row.data).toEqual({ firstName: 'Name 5', plan: 'enterprise', page: '/pricing', score: 42 });

    await page.getByRole('switch', { name: 'Subscribed' }).click({ force: true });
    await expect
      .poll(async () => (await d.h.sql('select subscribed from contacts where id = $1', [id]))[0].subscribed)
      .toBe(false);
    await page.getByTestId('timeline').locator('[data-event="contact.unsubscribed"]').waitFor();
    expect(await page.getByRole('switch', { name: 'Subscribed' }).isChecked()).toBe(false);
    // The consent history, newest first, in words: the switch just flipped, and how the contact came in.
    const consent = page.getByTestId('consent-history').locator('tr[data-row]');
    await expect
      .poll(() => consent.evaluateAll((trs) => trs.map((t) => t.getAttribute('data-row'))))
      .toEqual(['Unsubscribed in the dashboard', 'Subscribed by a CSV import']);
    await checkScreen(page, 'c5-contact-detail');
    await page.getByTestId('consent-history').scrollIntoViewIfNeeded();
    await checkScreen(page, 'c5-consent-history');
  }, 60_000);

  it('shows "not found" for another project\'s contact and for an unknown one', async () => {
    await page.goto(inApp(`/contacts/${otherContactId}`));
    await page.getByTestId('not-found').getByText('Contact not found').waitFor();
    await page.goto(inApp('/contacts/00000000-0000-4000-8000-000000000000'));
    await page.getByTestId('not-found').waitFor();
    await checkScreen(page, 'c6-contact-not-found');
  }, 60_000);

  it('adds a contact with data after refusing an invalid address, and lists the fields with their coverage', async () => {
    await page.goto(inApp('/contacts'));
    await page.getByRole('button', { name: 'Add contact' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Email' }).fill('nope');
    await dialog.getByRole('button', { name: 'Add contact' }).click();
    await dialog.getByText('Email must be an email address').waitFor();
    await dialog.getByRole('textbox', { name: 'Email' }).fill('ada@example.org');
    await dialog.getByRole('button', { name: 'Add field' }).click();
    await dialog.getByRole('textbox', { name: 'Key of field 1' }).fill('vip');
    await dialog.getByRole('combobox', { name: 'Type of vip' }).selectOption('boolean');
    await dialog.getByRole('button', { name: 'Add contact' }).click();
    await page.getByText('ada@example.org was added.').waitFor();
    const [ada] = await d.h.sql('select data, subscribed from contacts where project_id = $1 and email = $2', [
      project.id,
      'ada@example.org',
    ]);
    expect(ada).toEqual({ data: { vip: true }, subscribed: true });

    await page.getByRole('tab', { name: 'Fields' }).click();
    const plan = page.locator('tr[data-row="plan"]');
    await plan.waitFor();
    // 998 imported contacts have a plan, ada has not: 998 / 999.
    expect(await plan.getByTestId('coverage').textContent()).toBe('99.9 %');
    expect(await plan.getByTestId('field-type').textContent()).toBe('string');
    expect(await page.locator('tr[data-row="age"]').getByTestId('field-type').textContent()).toBe('number');
    expect(await page.locator('tr[data-row="vip"]').getByTestId('coverage').textContent()).toBe('0.1 %');
    await checkScreen(page, 'c7-fields');
    expect(problems.errors).toEqual([]);
  }, 60_000);

  it('imports an "Email Address" file with the mapping shown, finds a first name, keeps the filter in the address, exports it', async () => {
    await page.goto(inApp('/contacts'));
    await page.getByRole('button', { name: 'Import CSV' }).first().click();
    const dialog = page.getByRole('dialog');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'pigeon-csv-')), 'people.csv');
    writeFileSync(file, 'Email Address,firstName,Notes\ngrace@hopper.test,Gracey,=cmd()\n');
    await dialog.locator('input[type=file]').setInputFiles(file);
    const mapping = dialog.getByTestId('import-mapping');
    await mapping.waitFor();
    // The server's own rule proposes the mapping: the address column is the email, others data.
    expect(await mapping.getByRole('combobox', { name: 'Import the column Email Address as' }).inputValue()).toBe(
      'email',
    );
    expect(await mapping.getByRole('combobox', { name: 'Import the column firstName as' }).inputValue()).toBe(
      'data:firstName',
    );
    await mapping.getByRole('combobox', { name: 'Import the column Notes as' }).selectOption('skip');
    await checkBothSizes(page, 'c8-import-mapping');
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    await dialog.getByTestId('import-result').waitFor({ timeout: 30_000 });
    await dialog.getByRole('button', { name: 'Done' }).click();
    const [grace] = await d.h.sql('select data from contacts where project_id = $1 and email = $2', [
      project.id,
      'grace@hopper.test',
    ]);
    expect(grace.data).toEqual({ firstName: 'Gracey' });

    // A first name is found (the address does not contain it), and the filter is in the address.
    await page.getByRole('searchbox', { name: 'Search' }).fill('gracey');
    await expect.poll(rowEmails).toEqual(['grace@hopper.test']);
    await page.getByTestId('subscribed-filter').getByText('Subscribed', { exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('subscribed')).toBe('true');
    expect(new URL(page.url()).searchParams.get('q')).toBe('gracey');
    await page.reload();
    await expect.poll(rowEmails).toEqual(['grace@hopper.test']);
    expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('gracey');

    // The export is the filtered list, as a file the browser downloads.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^contacts-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\r\n').filter(Boolean)).toEqual([
      'email,subscribed,createdAt,firstName',
      expect.stringMatching(/^grace@hopper\.test,true,[^,]+,Gracey$/),
    ]);
    await checkBothSizes(page, 'c9-contacts-filtered');
  }, 60_000);

  it('offers the topics as import targets: a yes/no column joins a topic', async () => {
    const t = await d.h.request('POST', '/topics', {
      key: project.secretKey,
      body: { name: 'Release notes', default: 'opt-in' },
    });
    expect(t.status).toBe(201);
    await page.goto(inApp('/contacts'));
    await page.getByRole('button', { name: 'Import CSV' }).first().click();
    const dialog = page.getByRole('dialog');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'pigeon-csv-')), 'topics.csv');
    writeFileSync(file, 'email,wants notes\nada@lovelace.test,yes\nalan@turing.test,no\n');
    await dialog.locator('input[type=file]').setInputFiles(file);
    const column = dialog
      .getByTestId('import-mapping')
      .getByRole('combobox', { name: 'Import the column wants notes as' });
    await column.waitFor();
    // The topics load beside the file's preview: wait for them.
    await expect
      .poll(() => column.locator('option').allTextContents(), { timeout: 15_000 })
      .toContain('Topics (JSON like {"News": true})');
    await column.selectOption({ label: 'Topic “Release notes” (yes/no)' });
    await checkBothSizes(page, 'c8b-import-topic');
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    await dialog.getByTestId('import-result').waitFor({ timeout: 30_000 });
    await dialog.getByRole('button', { name: 'Done' }).click();
    const members = await d.h.sql(
      `select c.email from contact_topics ct join contacts c on c.id = ct.contact_id
      where ct.topic_id = $1 and ct.subscribed order by c.email`,
      [t.body.id],
    );
    expect(members).toEqual([{ email: 'ada@lovelace.test' }]);
    expect(problems.errors).toEqual([]);
  }, 60_000);

  it('shows a contact readably: fields in order, events in words with their data, emails linking to their page', async () => {
    const [c] = await d.h.sql<{ id: string }>('select id from contacts where project_id = $1 and email = $2', [
      project.id,
      'grace@hopper.test',
    ]);
    const emailId = '00000000-0000-4000-8000-0000000000e1';
    await d.h.request('PATCH', `/contacts/${c.id}`, {
      key: project.secretKey,
      body: { data: { zeta: 'last', Alpha: 'first', plan: 'pro' } },
    });
    await d.h.sql(
      `insert into events (id, project_id, contact_id, name, data, email_id, created_at) values
       (gen_random_uuid(), $1, $2, 'email.sent', '{"subject":"Welcome aboard"}', $3, now() - interval '2 hours'),
       (gen_random_uuid(), $1, $2, 'viewed-pricing', '{"page":"/pricing","seats":3}', null, now() - interval '5 minutes')`,
      [project.id, c.id, emailId],
    );
    await page.goto(inApp(`/contacts/${c.id}`));
    await page.getByRole('heading', { name: 'grace@hopper.test' }).waitFor();
    const keys = await page
      .getByTestId('data-editor')
      .locator('[data-field]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-field')));
    expect(keys).toEqual(['Alpha', 'firstName', 'plan', 'zeta']);
    // Only the types the API stores are offered.
    expect(await page.getByRole('combobox', { name: 'Type of plan' }).locator('option').allTextContents()).toEqual([
      'Text',
      'Number',
      'True/false',
    ]);
    const pricing = page.getByTestId('timeline').locator('[data-event="viewed-pricing"]');
    await pricing.waitFor();
    expect(await pricing.locator('time').textContent()).toBe('5 minutes ago');
    expect(await pricing.getByTestId('event-data').locator('dt').allTextContents()).toEqual(['page', 'seats']);
    expect(await pricing.getByTestId('event-data').locator('dd').allTextContents()).toEqual(['/pricing', '3']);
    await page.getByTestId('timeline').locator('[data-event="email.sent"]').getByText('Email sent').waitFor();
    await checkBothSizes(page, 'c10-contact-readable');
    await page.getByRole('link', { name: 'Welcome aboard' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(inApp(`/emails/${emailId}`));
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
