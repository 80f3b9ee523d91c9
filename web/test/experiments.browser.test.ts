import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { checkBothSizes, checkScreen } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

const CONTACTS = 10;
const SUBJECT_A = 'Spring is here';
const SUBJECT_B = 'Spring: 20 % off';
const BODY_B = '<p>Twenty percent off, <a href="https://spring.test/sale">this week only</a>.</p>';

/**
 * An A/B test in real Chromium against the real server, worker and SMTP sink: compose two variants
 * with a 40 % test and a 10 % holdout (the split bar shows 1 | 2 | 2 | 5 of 10 contacts), send it, read
 * the experiment panel while it waits for the winner, pick B by hand and see exactly the rest get B.
 */
describe('dashboard: A/B/n campaigns', () => {
  let d: Dashboard;
  let page: Page;
  let project: TestProject;

  beforeAll(async () => {
    d = await startDashboard();
    project = await createProject(d.h, await createVerifiedUser(d.h), 'Spring shop');
    await createVerifiedDomain(d.h, project.id);
    await d.h.sql(
      `insert into contacts (id, project_id, email, subscribed)
       select gen_random_uuid(), $1, 'ab' || i || '@spring.test', true from generate_series(1, $2::int) i`,
      [project.id, CONTACTS],
    );
    let context;
    ({ context, page } = await d.open());
    await context.addCookies([{ name: 'session', value: project.owner.cookie.slice('session='.length), url: d.h.url }]);
    page.setDefaultTimeout(15_000);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('composes two variants, sends the test, then the winner picked by hand to exactly the rest', async () => {
    await page.goto(`/app/p/${project.id}/campaigns/new`);
    await page.getByRole('textbox', { name: /^Name/ }).fill('Spring launch');
    await page.getByRole('textbox', { name: /^Subject/ }).fill(SUBJECT_A);
    await page.getByRole('switch', { name: 'Test versions of this email' }).check();
    // An empty variant field shows the campaign's value it falls back to.
    expect(await page.getByLabel('Subject of A').getAttribute('placeholder')).toBe(SUBJECT_A);
    await page.getByLabel('Subject of B').fill(SUBJECT_B);
    await page.locator('[data-variant="B"]').getByLabel('Its own body').check();
    await page.getByLabel('Body of B (HTML)').fill(BODY_B);
    await page.getByRole('textbox', { name: 'Test share (%)' }).fill('40');
    await page.getByRole('textbox', { name: 'Holdout (%)' }).fill('10');
    await page.getByLabel('The winner has the most').selectOption('click');
    await page.getByRole('textbox', { name: 'Wait', exact: true }).fill('1');
    await page.getByLabel('Unit').selectOption('hours');
    // Of 10 eligible contacts: 1 held out, 2 per variant, 5 for the winner.
    await page.locator('[data-testid="split-bar"][data-split="1,2,2,5"]').waitFor();
    await checkBothSizes(page, 'ab1-composer');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/campaigns\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    const [saved] = await d.h.sql('select variants, experiment from campaigns where id = $1', [id]);
    expect(saved).toEqual({
      variants: [{ key: 'A' }, { key: 'B', subject: SUBJECT_B, body: BODY_B }],
      experiment: { testPercent: 40, holdoutPercent: 10, metric: 'click', waitMinutes: 60 },
    });

    // A test of variant B first: its subject and body, in an inbox.
    await page.getByRole('button', { name: 'Send test' }).click();
    const testDialog = page.getByRole('dialog', { name: 'Send a test' });
    await testDialog.getByRole('textbox', { name: 'Send to' }).fill('tester@ab.test');
    await testDialog.getByText('B', { exact: true }).click();
    await checkScreen(page, 'ab1b-test-variant');
    await testDialog.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test of variant B sent to tester@ab.test.').waitFor();
    const tested = await eventually(
      async () => d.smtp.messages.find((m) => m.to.includes('tester@ab.test') && m.parsed.subject),
      10_000,
      'the test of B',
    );
    expect(tested.parsed.subject).toBe(`[TEST] ${SUBJECT_B}`);

    await page.getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('dialog').getByText('It is an A/B test: 40 % get the variants now').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Send now' }).click();
    const panel = page.locator('[data-testid="experiment"][data-phase="waiting"]');
    await panel.waitFor({ timeout: 30_000 });
    await panel.getByText(/^Waiting for the winner — chosen automatically at /).waitFor();
    const mails = () => d.smtp.messages.filter((m) => m.to.some((t) => t.includes('@spring.test')));
    const subjects = () =>
      mails()
        .map((m) => m.parsed.subject)
        .sort();
    // The sink parses each mail after accepting it: wait for the parsing, not for more mail.
    await eventually(async () => (mails().length >= 4 ? true : undefined), 5_000, '4 test mails');
    expect(subjects()).toEqual([SUBJECT_A, SUBJECT_A, SUBJECT_B, SUBJECT_B]);
    const rows = page.getByRole('table', { name: 'Variants' }).locator('tbody tr[data-row]');
    expect(await rows.evaluateAll((trs) => trs.map((t) => t.getAttribute('data-row')))).toEqual(['A', 'B']);
    // A person clicks one of B's two mails: B leads at 50 %, A's gap is not yet significant (p ≈ 0.25).
    // Its link has 3 clicks in all, 2 of them a scanner's (as delivery/outcomes.ts records a click).
    await d.h.sql(
      `with e as (
         update emails set clicked_at = now(), human_clicked_at = now()
         where id = (select id from emails where campaign_id = $1 and variant = 'B' limit 1)
         returning id, project_id, campaign_id)
       insert into email_link_clicks (email_id, project_id, campaign_id, position, url, clicks, human_clicks)
       select id, project_id, campaign_id, 0, 'https://spring.test/sale', 3, 1 from e`,
      [id],
    );
    // Apple Mail Privacy Protection fetches the pixel of one of A's mails: an open, but not a person's.
    const a = mails().find((m) => m.parsed.subject === SUBJECT_A)!;
    const pixel = /src="([^"]+\/t\/o\/[^"]+)"/.exec(String(a.parsed.html))![1];
    const mpp = await fetch(pixel.replace(/^https?:\/\/[^/]+/, d.h.url), { headers: { 'user-agent': 'Mozilla/5.0' } });
    expect(mpp.status).toBe(200);
    await page.locator('[data-stat="opened"][data-value="1"]').getByText('by people 0').waitFor();
    await page.getByTestId('machine-note').getByText('1 of the opened emails was opened only by machines').waitFor();
    await rows.nth(1).locator('[data-mark="leader"]').waitFor();
    expect(await rows.nth(1).locator('[data-rate]').getAttribute('data-rate')).toBe('50');
    await rows.first().getByText('not yet significant').waitFor();
    await page.getByTestId('holdout').getByText('The holdout, 1 contact (10 %), got no mail.').waitFor();
    await checkBothSizes(page, 'ab2-experiment-waiting');

    await page.getByRole('button', { name: 'Pick B as winner' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Pick B' }).click();
    await page.locator('[data-testid="experiment"][data-phase="done"][data-winner="B"]').waitFor({ timeout: 30_000 });
    await page
      .getByTestId('experiment-winner')
      .getByText(/^Variant B won: picked by hand/)
      .waitFor();
    await page.locator('[data-mark="winner"]').getByText('Winner, picked by hand').waitFor();
    expect(await page.getByRole('button', { name: /as winner$/ }).count()).toBe(0);
    // The 5 of the rest got B; the test groups nothing more, the holdout nothing at all.
    await eventually(async () => (mails().length >= 9 ? true : undefined), 15_000, '9 mails');
    expect(subjects()).toEqual([SUBJECT_A, SUBJECT_A, ...Array(7).fill(SUBJECT_B)]);
    expect(new Set(mails().flatMap((m) => m.to)).size).toBe(9);

    // The report's Links: the table, and the click map of B's mail with a count on its one link.
    const section = page.getByTestId('campaign-links');
    const row = section.getByRole('table', { name: 'Clicks per link' }).locator('tbody tr').first();
    await row.getByText('https://spring.test/sale').waitFor();
    expect(await row.locator('td').evaluateAll((tds) => tds.map((t) => t.textContent))).toEqual([
      '1',
      'https://spring.test/sale',
      '3',
      '1',
      '1',
    ]);
    await section.getByLabel('Mail shown').selectOption({ label: 'Variant B' });
    const badge = page.frameLocator('[data-testid="click-map-frame"]').locator('[data-click-badge="0"]');
    await expect.poll(() => badge.textContent()).toBe('1');
    const counts = section.getByRole('radiogroup', { name: 'Count on each link' });
    await counts.getByText('All clicks').click();
    await expect.poll(() => badge.textContent()).toBe('3');
    await counts.getByText('People').click();
    await section.scrollIntoViewIfNeeded();
    // Each recipient's variant, in the recipients table.
    const recipients = page.getByRole('table', { name: 'Recipients' });
    await recipients.getByRole('columnheader', { name: 'Variant' }).waitFor();
    const shown = await recipients.locator('tbody tr td:nth-child(2)').allTextContents();
    // 2 got A, 2 got B in the test and 5 got B as the winner.
    expect(shown.sort()).toEqual(['A', 'A', 'B', 'B', 'B', 'B', 'B', 'B', 'B']);
    await checkBothSizes(page, 'ab3-campaign-links');
    // The same report in dark mode (the dashboard follows the system's colour scheme).
    await page.emulateMedia({ colorScheme: 'dark' });
    await checkScreen(page, 'ab4-campaign-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  }, 90_000);
});
