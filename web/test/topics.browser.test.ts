import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';
import { checkBothSizes, checkScreen, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

/**
 * The Topics screen in real Chromium against the real server: empty, a topic created after an empty
 * name is refused at its field, members counted by the rule, edited, a delete refused in words while
 * a campaign sends to the topic, then deleted.
 */
describe('dashboard: topics', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  const inApp = (path: string) => `/app/p/${p.id}${path}`;

  beforeAll(async () => {
    d = await startDashboard();
    p = await createProject(d.h, await createVerifiedUser(d.h), 'Topic shop');
    for (const email of ['a@topics-ui.test', 'b@topics-ui.test', 'c@topics-ui.test']) {
      const res = await d.h.request('POST', '/contacts', { key: p.secretKey, body: { email } });
      expect(res.status).toBe(201);
    }
    let context;
    ({ context, page, problems } = await d.open());
    await context.addCookies([{ name: 'session', value: p.owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('starts empty, creates a topic after refusing an empty name, and counts its members', async () => {
    await page.goto(inApp('/topics'));
    await page.getByTestId('empty-state').getByText('No topics yet').waitFor();
    await checkScreen(page, 't1-topics-empty');
    await page.getByRole('button', { name: 'New topic' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New topic' });
    await dialog.getByRole('button', { name: 'Create topic' }).click();
    await dialog.getByText('Give the topic a name your readers will recognise.').waitFor();
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Product news');
    await dialog.getByRole('textbox', { name: 'Description' }).fill('What we shipped this month');
    await checkScreen(page, 't2-topic-new');
    await dialog.getByRole('button', { name: 'Create topic' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Product news/ });
    await row.waitFor();
    // Opt-out by default: the three subscribed contacts are in it.
    expect(await row.getByRole('cell').nth(3).innerText()).toBe('3');
    const [t] = await d.h.sql(
      'select name, description, subscription_default, public from topics where project_id = $1',
      [p.id],
    );
    expect(t).toEqual({
      name: 'Product news',
      description: 'What we shipped this month',
      subscription_default: 'opt-out',
      public: true,
    });
    await checkBothSizes(page, 't3-topics');
    // The system's dark scheme (the dashboard follows it unless told otherwise): still readable, axe clean.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme')))
      .toBe('dark');
    await checkBothSizes(page, 't3-topics-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  }, 60_000);

  it('edits a topic to opt-in: nobody has joined, so no members', async () => {
    await page.getByRole('button', { name: 'Edit Product news' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit topic' });
    await dialog.getByText('Only those who join').click();
    await dialog.getByText('Only contacts who join the topic get its mail.').waitFor();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Product news/ });
    await row.getByText('Those who join').waitFor();
    expect(await row.getByRole('cell').nth(3).innerText()).toBe('0');
  }, 60_000);

  it("joins a contact to the topic from the contact's page; the consent history shows it", async () => {
    const [a] = await d.h.sql('select id from contacts where project_id = $1 and email = $2', [
      p.id,
      'a@topics-ui.test',
    ]);
    await page.goto(inApp(`/contacts/${a.id}`));
    const toggle = page.getByRole('switch', { name: 'Product news' });
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);
    await toggle.click();
    await page.getByText('a@topics-ui.test joined Product news.').waitFor();
    expect(await toggle.isChecked()).toBe(true);
    await page.getByTestId('consent-history').getByText('Joined Product news in the dashboard').waitFor();
    const rows = await d.h.sql('select subscribed from contact_topics where contact_id = $1', [a.id]);
    expect(rows).toEqual([{ subscribed: true }]);
    await checkBothSizes(page, 't5-contact-topics');
    await page.goto(inApp('/topics'));
    await expect
      .poll(
        () =>
          page
            .getByRole('row', { name: /Product news/ })
            .getByRole('cell')
            .nth(3)
            .innerText(),
        { timeout: 15_000 },
      )
      .toBe('1');
  }, 60_000);

  it('says why a topic a campaign sends to cannot be deleted, then deletes it once the campaign is gone', async () => {
    const [topic] = await d.h.sql<{ id: string }>('select id from topics where project_id = $1', [p.id]);
    const { domain } = await createVerifiedDomain(d.h, p.id, { dns: d.dns });
    const c = await d.h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: 'May news', subject: 'News', body: '<p>News</p>', from: `news@${domain}`, topicId: topic.id },
    });
    expect(c.status, c.text).toBe(201);
    await page.getByRole('button', { name: 'Delete Product news' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this topic?' });
    await confirm.getByRole('button', { name: 'Delete topic' }).click();
    await confirm.getByText('The topic is used by the campaign "May news"').waitFor();
    await checkScreen(page, 't4-topic-delete-refused');
    expect((await d.h.request('DELETE', `/campaigns/${c.body.data.id}`, { key: p.secretKey })).status).toBe(204);
    await confirm.getByRole('button', { name: 'Delete topic' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await page.getByTestId('empty-state').getByText('No topics yet').waitFor();
    expect(await d.h.sql('select 1 from topics where project_id = $1', [p.id])).toEqual([]);
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
