import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../../test/factories.js';
import { waitForMail } from '../../test/outbox.js';
import { checkBothSizes, copyWith, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

/**
 * The first hour on a laptop (issue 34): a Pigeon with no SMTP relay and no DNS of its own. Sign up,
 * create a project, copy the secret key, send with it from an address on a domain nobody verified,
 * and see the mail in the dashboard's Emails screen, then open it. Screens are checked with axe and
 * photographed on a desktop (1440×900) and a phone (390×844).
 */
describe('dashboard: the first email, without DNS', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let projectId = '';
  let secretKey = '';
  const owner = uniqueEmail('first');
  const to = 'friend@example.test';
  const inApp = (p: string) => `/app/p/${projectId}${p}`;
  const sidebar = (label: string) =>
    page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: label });
  const bothSizes = (name: string, ready?: () => Promise<void>) => checkBothSizes(page, name, ready);

  beforeAll(async () => {
    d = await startDashboard({}, { outbox: true });
    ({ page, problems } = await d.open());
    await page.setViewportSize({ width: 1440, height: 900 });
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('signs up, creates a project and copies its secret key', async () => {
    await page.goto('/app/signup');
    await page.getByRole('textbox', { name: 'Email' }).fill(owner);
    await page.getByRole('textbox', { name: 'Password' }).fill('a long password 1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/app/welcome');
    await page.getByRole('textbox', { name: 'Project name' }).fill('My app');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByTestId('keys-reveal').waitFor();
    secretKey = await copyWith(page, page.getByRole('button', { name: 'Copy secret key' }));
    expect(secretKey).toMatch(/^sk_/);
    const [project] = await d.h.sql<{ id: string }>(
      `select p.id from projects p join memberships m on m.project_id = p.id
      join users u on u.id = m.user_id where u.email = $1`,
      [owner],
    );
    projectId = project.id;
    // No domain: nothing was verified, and nothing needs to be.
    expect(await d.h.sql('select 1 from domains where project_id = $1', [projectId])).toEqual([]);
  }, 60_000);

  it('sends with the secret key from an unverified domain; the mail lands in the outbox', async () => {
    const res = await d.h.request('POST', '/v1/send', {
      key: secretKey,
      body: {
        to,
        from: 'hello@my-laptop.test',
        subject: 'My first email',
        body: '<h1>Hello!</h1><p>Sent from Pigeon on my laptop.</p>',
      },
    });
    expect(res.status).toBe(200);
    const mail = await waitForMail(d.h.dataDir, to, 'My first email');
    expect(mail.headers.get('x-pigeon-unverified-sender')).toBe('outbox only');
    expect(mail.headers.has('dkim-signature')).toBe(false);
    expect(d.smtp.messages).toEqual([]);
  }, 30_000);

  it('shows the mail in Emails, and opens it as the recipient sees it', async () => {
    await page.goto(inApp(''));
    await sidebar('Emails').click();
    await page.waitForURL(`**${inApp('/emails')}`);
    const row = page.locator(`tr[data-row="${to}"]`);
    await row.waitFor();
    // Sent by the worker moments ago: the screen asks again until it says so.
    await expect
      .poll(
        async () => {
          await page.reload();
          await row.waitFor();
          return row.locator('[data-status]').getAttribute('data-status');
        },
        { timeout: 15_000 },
      )
      .toBe('SENT');
    expect(await row.innerText()).toContain('My first email');
    expect(await row.innerText()).toContain('API');
    await bothSizes('f1-emails');

    await row.getByRole('link', { name: 'My first email' }).click();
    await page.waitForURL(`**${inApp('/emails/')}*`);
    await page.getByRole('heading', { name: 'My first email', level: 1 }).waitFor();
    await page.getByTestId('unverified-sender').waitFor();
    const frame = page.frameLocator('[data-testid="email-frame"]');
    await frame.getByRole('heading', { name: 'Hello!' }).waitFor();
    expect(await page.getByTestId('email-events').innerText()).toContain('Sent');
    await bothSizes('f2-email', () => frame.getByText('Sent from Pigeon on my laptop.').waitFor({ state: 'visible' }));
    expect(problems.errors).toEqual([]);
  }, 90_000);

  it('says "not found" for an email of no project of the user', async () => {
    await page.goto(inApp('/emails/00000000-0000-7000-8000-000000000000'));
    await page.getByTestId('not-found').waitFor();
    await page.getByText('Email not found').waitFor();
  }, 30_000);
});
