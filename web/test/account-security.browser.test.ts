import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../../test/factories.js';
import { checkScreen, type PageProblems } from './support/browser.js';
import { linkIn, startDashboard, waitForMail, type Dashboard } from './support/dashboard.js';

/**
 * The account screens of "Hardening II": confirming an address from a browser that is not signed in to
 * the account asks for its password (so that nobody who signed up in someone's name keeps the account),
 * and signing up with an address that has an account says to check the mailbox, at desktop and phone
 * widths.
 */
describe('dashboard: confirming an address and signing up safely', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let squatter: TestUser;

  beforeAll(async () => {
    d = await startDashboard();
    squatter = await createUser(d.h); // someone else created the account, in this browser there is no session
    ({ page, problems } = await d.open());
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  for (const [width, height, tag] of [
    [1440, 900, 'desktop'],
    [390, 844, 'phone'],
  ] as const) {
    it(`asks for a password to confirm from another browser, then signs in (${tag})`, async () => {
      await page.setViewportSize({ width, height });
      const owner = tag === 'desktop' ? squatter : await createUser(d.h);
      const mail = (await waitForMail(d, owner.email)).find((m) => /Verify/.test(m.parsed.subject ?? ''))!;
      await page.context().clearCookies();
      await page.goto(linkIn(mail.parsed.text));
      await page.getByText('You are not signed in to this account in this browser').waitFor();
      await checkScreen(page, `s1-confirm-needs-password-${tag}`);
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill('the real owner password');
      await page.getByRole('textbox', { name: 'Repeat the password' }).fill('the real owner password');
      await page.getByRole('button', { name: 'Confirm and sign in' }).click();
      await page.getByTestId('email-verified').waitFor();
      await checkScreen(page, `s2-confirmed-${tag}`);
      expect((await d.h.sql('select email_verified from users where id = $1', [owner.id]))[0].email_verified).toBe(
        true,
      );
      // The creator's session is gone; the browser that confirmed is signed in.
      expect((await d.h.request('GET', '/users/@me', { cookie: owner.cookie })).status).toBe(401);
      expect((await page.context().cookies()).some((c) => c.name === 'session')).toBe(true);
    }, 60_000);

    it(`signing up with an address that has an account says to check the mailbox (${tag})`, async () => {
      await page.setViewportSize({ width, height });
      await page.context().clearCookies();
      await page.goto(`${d.h.url}/app/signup`);
      await page.getByRole('textbox', { name: 'Email' }).fill(squatter.email);
      await page.getByRole('textbox', { name: 'Password' }).fill('somebody else tries');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByTestId('signup-mailed-owner').waitFor();
      await checkScreen(page, `s3-signup-taken-${tag}`);
    }, 60_000);
  }

  it('shows no page error', () => {
    expect(problems.errors).toEqual([]);
  });
});
