import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';
import { checkBothSizes, checkScreen, type PageProblems } from './support/browser.js';
import { startDashboard, waitForMail, type Dashboard } from './support/dashboard.js';

const CONTACTS = [
  { email: 'zed@palette.test', subscribed: true },
  { email: 'amy@palette.test', subscribed: false },
];
const READER = 'reader@palette.test';

/**
 * The dashboard's frame (issue 34): the overview's figures once setup is done, dark mode (the
 * system's, or chosen and remembered), the command palette (Ctrl+K), the phone layout without
 * sideways scrolling, the analytics chart's legend and the link to the API reference.
 */
describe('dashboard: shell, overview and dark mode', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let project: TestProject;

  const inApp = (p: string) => `/app/p/${project.id}${p}`;
  const scheme = () => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth);

  beforeAll(async () => {
    d = await startDashboard();
    project = await createProject(d.h, await createVerifiedUser(d.h), 'Shell shop');
    const domain = await createVerifiedDomain(d.h, project.id);
    for (const c of CONTACTS) {
      const r = await d.h.request('POST', '/contacts', { key: project.secretKey, body: c });
      expect(r.status).toBe(201);
    }
    // Every step of the checklist: a verified domain, a sent email, a tracked event.
    const sent = await d.h.request('POST', '/v1/send', {
      key: project.secretKey,
      body: { to: READER, from: `hello@${domain.domain}`, subject: 'Hi', body: '<p>Hi</p>' },
    });
    expect(sent.status).toBe(200);
    const tracked = await d.h.request('POST', '/v1/track', {
      key: project.publicKey,
      body: { email: 'zed@palette.test', event: 'signed-up' },
    });
    expect(tracked.status).toBe(200);
    await waitForMail(d, READER);
    let context;
    ({ context, page, problems } = await d.open());
    await context.addCookies([{ name: 'session', value: project.owner.cookie.slice('session='.length), url: d.h.url }]);
    await page.setViewportSize({ width: 1440, height: 900 });
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('shows figures instead of the checklist once setup is done', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(inApp(''));
    await page.getByTestId('overview-figures').waitFor();
    await expect.poll(() => page.getByTestId('figure-sent').textContent(), { timeout: 15_000 }).toBe('1');
    // zed and amy, and the reader /v1/send added (unsubscribed, as Plunk adds them); amy unsubscribed.
    expect(await page.getByTestId('figure-contacts').textContent()).toBe('3');
    expect(await page.getByTestId('figure-subscribed').textContent()).toBe('1');
    expect(await page.getByTestId('onboarding').count()).toBe(0);
    await page.locator('label', { hasText: 'Last 7 days' }).click();
    await expect.poll(() => page.getByTestId('figure-sent').textContent()).toBe('1');
    await checkBothSizes(page, 'shell-overview');
  }, 60_000);

  it("follows the system's colour scheme, and remembers a chosen one across reloads", async () => {
    expect(await scheme()).toBe('light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(scheme).toBe('dark');
    expect(await page.getByTestId('color-scheme').getAttribute('aria-label')).toBe('Colour scheme: System');

    await page.getByTestId('color-scheme').click();
    await page.getByRole('menuitem', { name: 'Dark' }).click();
    await page.emulateMedia({ colorScheme: 'light' });
    await page.reload();
    await page.getByTestId('overview-figures').waitFor();
    expect(await scheme()).toBe('dark');
    expect(await page.getByTestId('color-scheme').getAttribute('aria-label')).toBe('Colour scheme: Dark');
    await checkBothSizes(page, 'shell-overview-dark');

    await page.goto(inApp('/contacts'));
    await page.locator('tr[data-row="zed@palette.test"]').waitFor();
    await checkBothSizes(page, 'shell-contacts-dark');
    // The chart's lines and axes are drawn in the dark scheme's own colours.
    await page.goto(inApp('/analytics'));
    await page.getByTestId('timeseries-chart').locator('canvas').first().waitFor();
    await checkScreen(page, 'shell-analytics-dark-1440');
    await page.getByTestId('color-scheme').click();
    await page.getByRole('menuitem', { name: 'Light' }).click();
    await expect.poll(scheme).toBe('light');
    await page.reload();
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    expect(await scheme()).toBe('light');
  }, 90_000);

  it('jumps to a contact and to a screen from the command palette (Ctrl+K)', async () => {
    await page.goto(inApp(''));
    await page.getByTestId('overview-figures').waitFor();
    const search = page.getByRole('textbox', { name: /Search screens, contacts/ });

    await page.keyboard.press('Control+K');
    await search.fill('zed@pal');
    const contact = page.getByRole('button', { name: /zed@palette\.test/ });
    await contact.waitFor();
    await checkScreen(page, 'shell-palette-1440');
    await contact.click();
    await page.waitForURL(new RegExp(`${inApp('/contacts/')}[0-9a-f-]{36}$`));

    // The header's button opens it too; its accessible name holds its visible word.
    await page.getByRole('button', { name: /^Search/ }).click();
    await search.fill('analy');
    await page.getByRole('button', { name: /^Analytics/ }).click();
    await page.waitForURL(`**${inApp('/analytics')}`);
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
  }, 60_000);

  it('names every series of the analytics chart in its legend, with the value under the pointer', async () => {
    await page.getByTestId('timeseries-chart').locator('canvas').first().waitFor();
    const legend = page.getByTestId('chart-legend');
    for (const name of ['Sent', 'Delivered', 'Opened', 'Clicked', 'Bounced'])
      expect(await legend.getByText(name, { exact: true }).count()).toBe(1);
    expect(await legend.locator('[data-series="sent"]').textContent()).toBe('Sent1');
    // No uPlot legend table under the chart any more.
    expect(await page.locator('.u-legend').count()).toBe(0);

    const box = (await page.locator('.u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
    await expect.poll(() => page.getByTestId('legend-when').textContent()).toMatch(/\(UTC\)$/);
    await page.mouse.move(0, 0);
    await checkBothSizes(page, 'shell-analytics', async () => {
      await page.getByTestId('timeseries-chart').locator('canvas').first().waitFor();
    });
  }, 60_000);

  it('fits a phone (390 px) without sideways scrolling; the sidebar links the API reference', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const screens: [string, () => Promise<void>][] = [
      ['', () => page.getByTestId('overview-figures').waitFor()],
      ['/contacts', () => page.locator('tr[data-row="zed@palette.test"]').waitFor()],
      ['/campaigns', () => page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor()],
      ['/analytics', () => page.getByTestId('chart-legend').waitFor()],
    ];
    for (const [path, ready] of screens) {
      await page.goto(inApp(path));
      await ready();
      expect(await overflow(), `page width at ${path || '/'}`).toBeLessThanOrEqual(390);
    }
    await page.getByRole('button', { name: 'Toggle navigation' }).click();
    const docs = page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: /API reference/ });
    await docs.waitFor();
    expect(await docs.getAttribute('href')).toBe('/docs');
    expect((await d.h.request('GET', '/docs')).status).toBeLessThan(400);
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(problems.errors).toEqual([]);
  }, 60_000);

  it('has an accessibility check that fails: an unnamed button and grey-on-white text are reported', async () => {
    await page.goto(inApp(''));
    await page.getByTestId('project-switcher').waitFor();
    // A clean check first, so the failing one below runs the axe already injected into the page, as
    // every check after a document's first does (support/browser.ts axeViolations).
    await checkScreen(page, 'shell-axe-clean-1440');
    await page.evaluate(() => {
      const bad = document.createElement('div');
      bad.innerHTML = '<button type="button"></button><p style="color:#ddd;background:#fff">faint words</p>';
      document.querySelector('main')?.append(bad);
    });
    // The failed assertion carries axe's report (rule and elements) as its actual value.
    const failure = await checkScreen(page, 'shell-axe-failure-1440').then(
      () => null,
      (err: { actual?: unknown }) => JSON.stringify(err.actual),
    );
    expect(failure).toMatch(/button-name/);
    expect(failure).toMatch(/color-contrast/);
  }, 60_000);
});
