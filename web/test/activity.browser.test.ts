import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';
import { checkBothSizes, checkScreen, type PageProblems } from './support/browser.js';
import { startDashboard, waitForMail, type Dashboard } from './support/dashboard.js';

/**
 * The activity feed and analytics in real Chromium against the real server and worker: a project
 * that sent a few emails (delivered to the SMTP sink) and tracked events through the API sees them in
 * the feed, narrows it by type, scrolls to the next page, and sees the chart and the top events.
 */
describe('dashboard: activity and analytics', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  const EVENTS = 30;
  const inApp = (path: string) => `/app/p/${p.id}${path}`;
  const rows = () => page.locator('tr[data-row]');
  const sidebar = (label: string) =>
    page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: label });

  beforeAll(async () => {
    d = await startDashboard();
    const owner = await createVerifiedUser(d.h);
    p = await createProject(d.h, owner, 'Busy project');
    const { domain } = await createVerifiedDomain(d.h, p.id, { dns: d.dns });
    ({ page, problems } = await d.open());
    await page.goto('/app/login');
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(owner.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`**${inApp('')}`);
    // Empty first: the screens say what to do.
    await page.goto(inApp('/activity'));
    await page.getByTestId('empty-state').getByText('No activity yet').waitFor();
    await checkScreen(page, 'a0-activity-empty');
    await page.goto(inApp('/analytics'));
    await page.getByText('No email in this period').waitFor();
    await page.getByText('No event tracked in the last 30 days').waitFor();
    await checkScreen(page, 'a0-analytics-empty');

    for (let i = 1; i <= 3; i++) {
      const to = `reader${i}@rcpt.test`;
      const sent = await d.h.request('POST', '/v1/send', {
        key: p.secretKey,
        body: { to, from: `news@${domain}`, subject: `Issue ${i}`, body: `<p>Issue ${i}</p>` },
      });
      expect(sent.status).toBe(200);
      await waitForMail(d, to);
    }
    for (let i = 0; i < EVENTS; i++) {
      const tracked = await d.h.request('POST', '/v1/track', {
        key: p.publicKey,
        body: { email: `user${i % 5}@rcpt.test`, event: i % 3 === 0 ? 'purchase' : 'page-view' },
      });
      expect(tracked.status).toBe(200);
    }
    // Delivery is recorded just after the SMTP handover: wait until the rows say so.
    for (let i = 0; i < 100; i++) {
      const [r] = await d.h.sql(
        `select count(*)::int as n from emails where project_id = $1 and delivered_at is not null`,
        [p.id],
      );
      if (r.n === 3) break;
      await new Promise((res) => setTimeout(res, 100));
    }
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('lists the emails and events, newest first, and loads the next page on scrolling', async () => {
    await sidebar('Activity').click();
    await page.waitForURL(`**${inApp('/activity')}`);
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(25);
    // The newest items are the events tracked last.
    expect(await rows().first().getAttribute('data-row')).toBe('event');
    const total = Number((await page.getByTestId('activity-count').innerText()).match(/of (\d+)/)![1]);
    expect(total).toBeGreaterThanOrEqual(EVENTS + 6);
    await checkScreen(page, 'a1-activity');

    await page.getByTestId('feed-end').scrollIntoViewIfNeeded();
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(Math.min(total, 50));
    const types = await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-row')));
    expect(types).toContain('email.sent');
    expect(types).toContain('email.delivered');
    expect(problems.errors).toEqual([]);
  }, 60_000);

  it('narrows the feed by type', async () => {
    await page.getByTestId('activity-type-filter').click();
    await page.getByRole('option', { name: 'Sent' }).click();
    await page.keyboard.press('Escape');
    await expect
      .poll(async () => (await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-row')))).join(','), {
        timeout: 10_000,
      })
      .toBe('email.sent,email.sent,email.sent');
    await page.getByText('Issue 3').waitFor();
    await checkScreen(page, 'a2-activity-filtered');
  }, 60_000);

  it('shows the analytics chart with the sends, and the top events', async () => {
    // Two mails opened, one of them by a person only (the other by Apple's privacy proxy, say).
    await d.h.sql(
      `update emails set opened_at = now(), human_opened_at = case when subject = 'Issue 1' then now() end
       where project_id = $1 and subject in ('Issue 1', 'Issue 2')`,
      [p.id],
    );
    await sidebar('Analytics').click();
    await page.waitForURL(`**${inApp('/analytics')}`);
    const chart = page.getByTestId('timeseries-chart');
    await chart.locator('canvas').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('total-sent').innerText()).toBe('3');
    expect(await page.getByTestId('total-delivered').innerText()).toBe('3');
    expect(await chart.getAttribute('aria-label')).toContain('3 sent');
    // The canvas has something drawn on it: not every pixel is blank.
    const inked = await chart.locator('canvas').evaluate((c: HTMLCanvasElement) => {
      const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(100);
    const purchase = page.locator('tr[data-row="purchase"]');
    await purchase.waitFor();
    expect(await purchase.locator('td').nth(1).innerText()).toBe('10');
    expect(await page.locator('tr[data-row="page-view"] td').nth(1).innerText()).toBe('20');
    await page.getByText('No campaign sent in the last 30 days').waitFor();
    expect(await page.getByTestId('total-opened').innerText()).toBe('2');
    expect(await page.getByTestId('total-humanOpened').innerText()).toBe('1 by people (33.3 % of sent)');
    await page.getByTestId('campaign-figures').getByText('No campaign mail in the last 30 days.').waitFor();
    await checkBothSizes(page, 'a3-analytics');

    await page.getByText('Last 48 hours, by hour').click();
    await expect.poll(() => chart.getAttribute('aria-label')).toMatch(/^Emails per hour: 3 sent/);
    await checkScreen(page, 'a4-analytics-hourly');
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
