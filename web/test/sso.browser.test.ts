import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../../test/factories.js';
import { startOidcProvider, type TestOidcProvider } from '../../test/oidc-provider.js';
import { checkBothSizes, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

/**
 * Single sign-on (issue 39) in a real browser: the login page's "Sign in with …" button goes to a local
 * OpenID Connect provider (oidc-provider's development login and consent screens) and back to a
 * signed-in dashboard; a refusal comes back as a sentence on the login page; an `sso-only` server's
 * sign-up page offers the button instead of a form.
 */
describe('dashboard: single sign-on', () => {
  let idp: TestOidcProvider;
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    idp = await startOidcProvider();
    d = await startDashboard({
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      OIDC_NAME: 'Acme ID',
      SIGNUP: 'sso-only',
    });
    idp.register(`${d.h.url}/auth/oidc/callback`);
    ({ page, problems } = await d.open());
  }, 120_000);
  afterAll(async () => {
    await d?.close();
    await idp?.close();
  });

  /** Signs in at the provider's development screens as `login` (they are the provider's, not Pigeon's). */
  async function signInAtProvider(login: string) {
    await page.waitForURL(`${idp.issuer}/**`);
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('button[type="submit"]').click();
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  it('shows the button on the login page and signs a new person in through the provider', async () => {
    await page.goto('/app/login');
    const button = page.getByRole('link', { name: 'Sign in with Acme ID' });
    await button.waitFor();
    await checkBothSizes(page, 'sso-1-login-button');
    expect(problems.errors).toEqual([]);

    const email = uniqueEmail('sso-browser');
    idp.accounts.set('ada', { sub: 'ada', email, email_verified: true });
    await button.click();
    await signInAtProvider('ada');
    await page.waitForURL(
      (url) => url.origin === d.h.url && url.pathname.startsWith('/app') && !url.pathname.includes('login'),
    );
    const session = (await page.context().cookies()).find((c) => c.name === 'session');
    expect(session).toBeDefined();
    const me = await d.h.request('GET', '/users/@me', { cookie: `session=${session!.value}` });
    expect(me.body).toMatchObject({ email, emailVerified: true });
    expect(await d.h.sql('select method from sessions where user_id = $1', [me.body.id])).toEqual([{ method: 'oidc' }]);
    await checkBothSizes(page, 'sso-2-signed-in');
  }, 60_000);

  it('brings a refusal back to the login page as a sentence', async () => {
    await page.context().clearCookies();
    idp.accounts.set('bob', { sub: 'bob', email: uniqueEmail('unverified'), email_verified: false });
    await page.goto('/app/login');
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).click();
    await signInAtProvider('bob');
    const alert = page.getByTestId('sso-error');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Acme ID has not verified the email address of your account there');
    await checkBothSizes(page, 'sso-3-refused');
  }, 60_000);

  it('offers single sign-on instead of a form on the sign-up page of an sso-only server', async () => {
    await page.context().clearCookies();
    await page.goto('/app/signup');
    await page.getByTestId('signup-mode-sso-only').waitFor();
    expect(await page.getByRole('button', { name: 'Create account' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Sign in with Acme ID' }).count()).toBe(1);
    await checkBothSizes(page, 'sso-4-signup-sso-only');
  }, 60_000);
});
