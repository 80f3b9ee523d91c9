import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { startReceiver } from '../../test/webhook-receiver.js';
import { checkBothSizes, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

/**
 * The screens of what the API already did (issue 34): event webhooks (an endpoint added, its secret
 * shown once, a test and a real event delivered to a receiver on 127.0.0.1, one sent again from the
 * log), suppressions (add, search, import, export, remove) and sender health (rates in words, a
 * pause, resuming). Screens are checked with axe and photographed at 1440 and 390 px.
 */
describe('dashboard: webhooks, suppressions and sender health', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const inApp = (path: string) => `/app/p/${p.id}${path}`;
  const sidebar = (label: string) =>
    page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: label });
  const dialog = () => page.getByRole('dialog');

  beforeAll(async () => {
    rx = await startReceiver();
    // The receiver is on 127.0.0.1, which endpoints may not name unless this is set.
    d = await startDashboard({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' });
    const owner = await createVerifiedUser(d.h);
    p = await createProject(d.h, owner, 'Hooks and lists');
    ({ page, problems } = await d.open());
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/app/login');
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(owner.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`**${inApp('')}`);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
    await rx?.close();
  });

  it('adds a webhook endpoint and shows its secret once; a test and an event are delivered, and one is sent again', async () => {
    await sidebar('Webhooks').click();
    await page.waitForURL(`**${inApp('/webhooks')}`);
    await page.getByTestId('empty-state').getByText('No webhook endpoint yet').waitFor();
    await page.getByRole('button', { name: 'Add endpoint' }).first().click();
    // Nothing picked and no address: both are said at their fields, nothing is sent.
    await dialog().getByRole('checkbox', { name: 'Every event, including new types added later' }).uncheck();
    await dialog().getByRole('button', { name: 'Add endpoint' }).click();
    await dialog().getByText('Enter the address that should receive the events.').waitFor();
    await dialog().getByText('Pick at least one event to send.').waitFor();
    await dialog().getByRole('textbox', { name: 'Endpoint URL' }).fill(`${rx.base}/hooks`);
    await dialog().getByRole('checkbox', { name: 'Contact events: all' }).check();
    await dialog().getByRole('checkbox', { name: 'email.bounced' }).check();
    const atOnce = dialog().getByRole('textbox', { name: 'Deliveries at once' });
    expect(await atOnce.inputValue()).toBe('8');
    await atOnce.fill('');
    await dialog().getByRole('button', { name: 'Add endpoint' }).click();
    await dialog().getByText('Enter how many deliveries may be in flight at once, from 1 to 64.').waitFor();
    await atOnce.fill('4');
    await checkBothSizes(page, 'ps0-webhook-add');
    await dialog().getByRole('button', { name: 'Add endpoint' }).click();

    const secret = (await page.getByTestId('webhook-secret').innerText()).trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    await checkBothSizes(page, 'ps1-webhook-secret');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByTestId('secret-reveal').waitFor({ state: 'detached' });
    const row = page.locator(`tr[data-row="${rx.base}/hooks"]`);
    expect(await row.innerText()).toContain('contact.*, email.bounced');
    await checkBothSizes(page, 'ps2-webhooks');

    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor();
    // Shown once: the endpoint's own page never has it.
    expect(await page.content()).not.toContain(secret);
    await page.getByText('up to 4; events about one email or contact go one at a time, in order').waitFor();
    await page.getByText('Nothing sent to this endpoint yet').waitFor();
    await page.getByRole('button', { name: 'Send a test' }).click();
    await page.getByText(/Test delivered: the endpoint answered HTTP 200/).waitFor();
    const testRow = page.locator('tr[data-row="webhook.test"]');
    await testRow.waitFor();
    expect(await testRow.getByTestId('delivery-answer').innerText()).toMatch(/^HTTP 200 in [\d,]+ ms$/);
    expect(await testRow.getByRole('button', { name: /Send the .* again/ }).count()).toBe(0);
    expect(rx.at('/hooks')).toHaveLength(1);

    // A real event: the worker delivers it, the log shows it.
    const created = await d.h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'hooked@example.test' },
    });
    expect(created.status).toBe(201);
    const eventRow = page.locator('tr[data-row="contact.created"]');
    await expect
      .poll(
        async () => {
          await page.reload();
          await testRow.waitFor();
          return eventRow
            .locator('[data-status]')
            .getAttribute('data-status', { timeout: 500 })
            .catch(() => null);
        },
        { timeout: 20_000 },
      )
      .toBe('SUCCEEDED');
    await eventRow.getByRole('button', { name: 'Send the contact.created delivery again' }).click();
    await page.getByText('Sending it again now').waitFor();
    await expect
      .poll(() => rx.at('/hooks').filter((r) => r.body.includes('contact.created')).length, {
        timeout: 15_000,
      })
      .toBe(2);
    const [first, again] = rx.at('/hooks').filter((r) => r.body.includes('contact.created'));
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
    await expect
      .poll(() => eventRow.locator('[data-status]').getAttribute('data-status'), { timeout: 10_000 })
      .toBe('SUCCEEDED');
    await eventRow.getByRole('button', { name: 'Details' }).click();
    await page.getByTestId('delivery-details').getByText('hooked@example.test').first().waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('delivery-details').waitFor({ state: 'detached' });
    await checkBothSizes(page, 'ps3-webhook-endpoint');
  }, 150_000);

  it('adds, searches, imports, exports and removes suppressed addresses', async () => {
    await sidebar('Suppressions').click();
    await page.waitForURL(`**${inApp('/suppressions')}`);
    await page.getByTestId('empty-state').getByText('No suppressed address').waitFor();
    await page.getByRole('button', { name: 'Add address' }).click();
    await dialog().getByRole('textbox', { name: 'Email address' }).fill('not an address');
    await dialog().getByRole('button', { name: 'Suppress' }).click();
    await dialog().getByText('This is not an email address.').waitFor();
    await dialog().getByRole('textbox', { name: 'Email address' }).fill('Blocked@Example.test');
    await dialog().getByRole('button', { name: 'Suppress' }).click();
    await page.locator('tr[data-row="blocked@example.test"]').waitFor();

    await page.getByRole('button', { name: 'Import CSV' }).click();
    await dialog()
      .locator('input[type=file]')
      .setInputFiles({
        name: 'optouts.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('Name,E-mail\nAnn,ann@old-provider.test\nBob,bob@old-provider.test\nEve,nope\n'),
      });
    await dialog().getByRole('button', { name: 'Import' }).click();
    const result = page.getByTestId('suppression-import-result');
    await result.waitFor();
    expect(await result.locator('[data-stat="Added"]').innerText()).toContain('2');
    expect(await result.innerText()).toContain('"nope" is not an email address.');
    await dialog().getByRole('button', { name: 'Done' }).click();
    await page.locator('tr[data-row="ann@old-provider.test"]').waitFor();
    expect(await page.locator('tr[data-row="ann@old-provider.test"]').innerText()).toContain('Opted out');

    await page.getByRole('textbox', { name: 'Search' }).fill('OLD-PROV');
    await expect.poll(() => page.locator('tr[data-row]').count(), { timeout: 5000 }).toBe(2);
    await checkBothSizes(page, 'ps4-suppressions');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export these' }).click(),
    ]);
    const csv = await readFile((await download.path())!, 'utf8');
    expect(csv.split('\r\n').slice(0, 1)).toEqual(['email,reason,createdAt']);
    expect(csv).toContain('ann@old-provider.test,unsubscribe,');
    expect(csv).not.toContain('blocked@example.test');

    await page.getByRole('textbox', { name: 'Search' }).fill('');
    await page.getByRole('button', { name: 'Remove blocked@example.test from the list' }).click();
    await dialog().getByRole('button', { name: 'Remove' }).click();
    await page.locator('tr[data-row="blocked@example.test"]').waitFor({ state: 'detached' });
    expect(await d.h.sql('select email from suppressions where project_id = $1 order by email', [p.id])).toEqual([
      { email: 'ann@old-provider.test' },
      { email: 'bob@old-provider.test' },
    ]);
  }, 90_000);

  it('says the bounce and complaint rates against the pause lines, and resumes paused sending', async () => {
    const mails = (status: string, n: number, daysAgo: number) =>
      d.h.sql(
        `insert into emails (id, project_id, to_email, from_email, subject, body, source_type, status, created_at)
         select gen_random_uuid(), $1, 'r' || g || '@example.test', 'a@example.test', 's', 'b', 'TRANSACTIONAL', $2,
           now() - $4::float8 * interval '1 day'
         from generate_series(1, $3::int) g`,
        [p.id, status, n, daysAgo],
      );
    await mails('DELIVERED', 247, 1);
    await mails('BOUNCED', 3, 1);
    // Long enough ago to be out of the 7 days, but it makes the 30 days critical: campaigns pause.
    await mails('BOUNCED', 60, 20);
    await sidebar('Sender health').click();
    await page.waitForURL(`**${inApp('/health')}`);
    const summary = page.getByTestId('health-summary');
    await summary.waitFor();
    expect(await summary.getAttribute('data-paused')).toBe('true');
    expect(await page.getByTestId('health-7').getByTestId('bounce-sentence').innerText()).toBe(
      'Your bounce rate is 1.2% over the last 7 days (3 of 250 mails bounced); mailbox providers start to worry at 5%, and campaigns pause at 10%.',
    );
    expect(await page.getByTestId('health-30').getByTestId('bounce-sentence').innerText()).toMatch(
      /^Your bounce rate is 20\.32% over the last 30 days \(63 of 310 mails bounced\)/,
    );
    await checkBothSizes(page, 'ps5-sender-health');
    await page.getByRole('button', { name: 'Resume sending' }).click();
    await dialog().getByRole('button', { name: 'Resume sending' }).click();
    await expect.poll(() => summary.getAttribute('data-paused'), { timeout: 10_000 }).toBe('false');
    expect(await summary.innerText()).toContain('sending was resumed');
    expect(problems.errors).toEqual([]);
  }, 90_000);
});
