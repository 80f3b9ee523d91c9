import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, type TestUser } from '../../test/factories.js';
import { checkBothSizes, checkScreen, newPage, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

/**
 * Account → Security (issue 39): set up two-factor sign-in with an authenticator app and sign in with
 * its code; register a passkey with Chromium's virtual authenticator (WebAuthn over the DevTools
 * protocol) and sign in with it alone. The dashboard is opened on `localhost`, as WebAuthn takes a
 * host name, never an IP address, for the relying party.
 */
describe('dashboard: two-factor sign-in and passkeys', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let user: TestUser;
  let base: string;
  let secret = '';

  beforeAll(async () => {
    d = await startDashboard();
    base = d.h.url.replace('127.0.0.1', 'localhost');
    (d.h.deps.config as { PUBLIC_URL: string }).PUBLIC_URL = base;
    user = await createUser(d.h);
    ({ page, problems } = await newPage(d.browser, base));
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  const code = () => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: d.h.clock.now().getTime() });

  async function logInWithPassword() {
    await page.context().clearCookies();
    await page.goto(`${base}/app/login`);
    await page.getByRole('textbox', { name: 'Email' }).fill(user.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(user.password);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
  }
  const signedIn = () => page.waitForURL((u) => !u.pathname.startsWith('/app/login'));

  it('sets up two-factor sign-in: QR code, key, confirmation code, recovery codes shown once', async () => {
    await logInWithPassword();
    await signedIn();
    await page.goto(`${base}/app/account/security`);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).waitFor();
    await page.getByTestId('session-row').first().waitFor();
    await checkBothSizes(page, 'security');
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    await page.getByTestId('totp-qr').locator('svg').waitFor();
    await checkScreen(page, 'security-enrol');
    await page.getByRole('textbox', { name: 'Code from the app' }).fill(code());
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    await checkScreen(page, 'security-recovery-codes');
    expect(await page.getByTestId('recovery-codes').locator('li').count()).toBe(10);
    await page.getByRole('button', { name: 'I saved them' }).click();
    await page.getByText('10 of 10 recovery codes are left').waitFor();
    const [row] = await d.h.sql('select totp_enabled_at from users where id = $1', [user.id]);
    expect(row.totp_enabled_at).not.toBeNull();
  }, 90_000);

  it('asks for the code after the password, and signs in with it', async () => {
    d.h.clock.advance(30_000); // the confirmation spent this step's code
    await logInWithPassword();
    await page.getByTestId('second-step').waitFor();
    await checkBothSizes(page, 'second-step');
    await page.getByRole('textbox', { name: 'Code from your app' }).fill(code());
    await page.getByRole('button', { name: 'Verify' }).click();
    await signedIn();
    const [s] = await d.h.sql('select method from sessions where user_id = $1 order by created_at desc limit 1', [
      user.id,
    ]);
    expect(s.method).toBe('totp');
  }, 90_000);

  it('registers a passkey with a virtual authenticator and signs in with it alone', async () => {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });
    await page.goto(`${base}/app/account/security`);
    await page.getByRole('textbox', { name: 'Name of the new passkey' }).fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByTestId('passkey-row').filter({ hasText: 'Test laptop' }).waitFor();
    await checkScreen(page, 'security-passkey');

    await page.context().clearCookies();
    await page.goto(`${base}/app/login`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await signedIn();
    const [s] = await d.h.sql('select method from sessions where user_id = $1 order by created_at desc limit 1', [
      user.id,
    ]);
    expect(s.method).toBe('passkey');
    const [pk] = await d.h.sql('select last_used_at from passkeys where user_id = $1', [user.id]);
    expect(pk.last_used_at).not.toBeNull();
  }, 90_000);

  it('shows a password-only member of a project that requires two-factor only the page asking to set it up', async () => {
    const project = await createProject(d.h);
    await d.h.sql('update projects set require_2fa = true where id = $1', [project.id]);
    const member = await createUser(d.h);
    await d.h.sql("insert into memberships (project_id, user_id, role) values ($1, $2, 'MEMBER')", [
      project.id,
      member.id,
    ]);
    await page.context().clearCookies();
    await page.goto(`${base}/app/login`);
    await page.getByRole('textbox', { name: 'Email' }).fill(member.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(member.password);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await signedIn();
    await page.goto(`${base}/app/p/${project.id}`);
    await page.getByTestId('two-factor-required').waitFor();
    await checkBothSizes(page, 'two-factor-required');
    await page.getByRole('link', { name: 'Set up two-factor sign-in' }).click();
    await page.waitForURL((u) => u.pathname === '/app/account/security');

    // Or they leave the project, which needs no second factor.
    await page.goto(`${base}/app/p/${project.id}`);
    await page.getByRole('button', { name: 'Leave this project' }).click();
    const dialog = page.getByRole('dialog', { name: `Leave ${project.name}?` });
    await dialog.waitFor();
    await checkScreen(page, 'two-factor-required-leave');
    await dialog.getByRole('button', { name: 'Leave project' }).click();
    await page.waitForURL((u) => u.pathname === '/app/projects');
    await page.getByText(`You left ${project.name}.`).waitFor();
    expect(
      await d.h.sql('select 1 from memberships where project_id = $1 and user_id = $2', [project.id, member.id]),
    ).toEqual([]);
  }, 90_000);

  it('shows no page error', () => {
    expect(problems.errors).toEqual([]);
  });
});
