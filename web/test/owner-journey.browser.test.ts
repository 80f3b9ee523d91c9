import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifiedUser, uniqueEmail } from '../../test/factories.js';
import { dkimResults } from '../../test/sending-fixtures.js';
import { checkScreen, copyWith, type PageProblems } from './support/browser.js';
import { linkIn, startDashboard, waitForMail, type Dashboard } from './support/dashboard.js';

/**
 * A new user's whole way through the dashboard in real Chromium against the real server, worker, SMTP
 * sink and DNS server: sign up, create a project, copy its keys, add and verify a domain, send, then
 * rotate keys, manage settings and members, switch projects, lose the session, confirm the email,
 * reset the password, reset and delete the project. Every screen is checked with axe and photographed.
 */
describe('dashboard: a new owner, from sign-up to a delivered mail', () => {
  let d: Dashboard;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  const email = uniqueEmail('owner');
  /** An address without an account, invited once the owner has confirmed theirs. */
  const stranger = uniqueEmail('nobody');
  let password = 'a long password 1';
  const domain = `acme-${randomUUID().slice(0, 8)}.test`;
  let projectId = '';
  let secretKey = '';
  let publicKey = '';
  const signupRequests: string[] = [];

  const url = () => new URL(page.url());
  // Entries of screens still to come carry a "soon" badge in their name.
  const sidebar = (label: string) =>
    page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: new RegExp(`^${label}( soon)?$`) });
  const inApp = (p: string) => `/app/p/${projectId}${p}`;

  beforeAll(async () => {
    d = await startDashboard();
    ({ context, page, problems } = await d.open());
    page.on('request', (r) => {
      if (r.url().endsWith('/auth/signup')) signupRequests.push(r.method());
    });
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('sends a signed-out visitor to the login page, and signs up after refusing a short password without asking the server', async () => {
    await page.goto('/');
    await page.waitForURL('**/app/login');
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await checkScreen(page, '01-login');

    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('textbox', { name: 'Password' }).fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByText('Password must be at least 8 characters').count()).toBe(1);
    expect(signupRequests).toEqual([]);
    await checkScreen(page, '02-signup-invalid');

    await page.getByRole('textbox', { name: 'Password' }).fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/app/welcome');
    expect(signupRequests).toEqual(['POST']);
    await page.getByRole('textbox', { name: 'Project name' }).waitFor();
    await checkScreen(page, '03-welcome');
  }, 60_000);

  it('creates a project and shows its keys once, with copy buttons that copy the working keys', async () => {
    await page.getByRole('textbox', { name: 'Project name' }).fill('Acme shop');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByTestId('keys-reveal').waitFor();
    secretKey = await copyWith(page, page.getByRole('button', { name: 'Copy secret key' }));
    publicKey = await copyWith(page, page.getByRole('button', { name: 'Copy public key' }));
    expect(secretKey).toMatch(/^sk_/);
    expect(publicKey).toMatch(/^pk_/);
    expect(await page.getByTestId('secret-key').textContent()).toBe(secretKey);
    await checkScreen(page, '04-project-keys');

    // The copied key is the project's: it authenticates API calls.
    const [project] = await d.h.sql<{ id: string }>(
      'select p.id from projects p join memberships m on m.project_id = p.id join users u on u.id = m.user_id where u.email = $1',
      [email],
    );
    projectId = project.id;
    expect((await d.h.request('GET', '/contacts', { key: secretKey })).status).toBe(200);

    await page.getByRole('button', { name: /continue/ }).click();
    await page.waitForURL(`**${inApp('')}`);
    await page.getByTestId('onboarding').waitFor();
    expect(await page.locator('[data-done="true"]').count()).toBe(0);
    await expect.poll(() => page.getByText('0 of 4 steps done').count()).toBe(1);
    await checkScreen(page, '05-overview-new');
  }, 60_000);

  it('adds a domain after refusing a bad name, keeps the value when the server refuses a duplicate, and verifies it through DNS', async () => {
    await sidebar('Domains').click();
    await page.waitForURL(`**${inApp('/domains')}`);
    await page.getByTestId('empty-state').waitFor();
    await checkScreen(page, '06-domains-empty');

    const input = page.getByRole('textbox', { name: 'Add a sending domain' });
    await input.fill('not a domain');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByText('Invalid domain name').waitFor();
    expect(await d.h.sql('select 1 from domains where project_id = $1', [projectId])).toEqual([]);

    await input.fill(domain);
    await page.getByRole('button', { name: 'Add domain' }).click();
    const card = page.locator(`[data-domain="${domain}"]`);
    await card.waitFor();
    expect(await card.getByTestId('domain-state').textContent()).toBe('Pending');
    expect(await input.inputValue()).toBe('');

    // The server answers 409 for the same domain again: its message and request id show, the value stays.
    await input.fill(domain);
    await page.getByRole('button', { name: 'Add domain' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'already added' });
    await alert.waitFor();
    // Codes and the request id wait behind "Details", for whoever reports the problem.
    expect(await alert.getByTestId('request-id').count()).toBe(0);
    await alert.getByRole('button', { name: 'Details' }).click();
    expect(await alert.getByTestId('request-id').textContent()).toMatch(/^[0-9a-f-]{36}$/);
    expect(await input.inputValue()).toBe(domain);
    await checkScreen(page, '07-domain-pending');
    await input.fill('');

    // Publish what the page says, copied with its buttons, on the test DNS server.
    const dkimRow = card.locator('tr[data-row="DKIM"]');
    const dkimName = (await dkimRow.locator('code').first().textContent())!;
    const dkimValue = await copyWith(page, card.getByRole('button', { name: `Copy value of ${dkimName}` }));
    expect(dkimValue).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{300,}$/);
    const split = await copyWith(page, dkimRow.getByTestId('copy-split'));
    const strings = [...split.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    expect(strings.length).toBeGreaterThan(1);
    expect(strings.every((s) => s.length <= 255)).toBe(true);
    expect(strings.join('')).toBe(dkimValue);
    d.dns.set(dkimName, { TXT: [dkimValue] });
    d.dns.set(domain, { TXT: ['v=spf1 a mx ~all'] });
    d.dns.set(`_dmarc.${domain}`, { TXT: ['v=DMARC1; p=none;'] });

    await card.getByRole('button', { name: 'Verify now' }).click();
    await expect.poll(() => card.getByTestId('domain-state').textContent(), { timeout: 15_000 }).toBe('Verified');
    expect(await card.locator('[data-status="verified"]').count()).toBe(3);
    const [row] = await d.h.sql('select verified from domains where project_id = $1', [projectId]);
    expect(row.verified).toBe(true);
    await checkScreen(page, '08-domain-verified');
  }, 60_000);

  it('ticks the checklist as the project sends: the mail reaches the SMTP sink DKIM-signed', async () => {
    const to = uniqueEmail('friend');
    const sent = await d.h.request('POST', '/v1/send', {
      key: secretKey,
      body: { to, from: `hello@${domain}`, subject: 'First mail', body: '<p>It works.</p>' },
    });
    expect(sent.status).toBe(200);
    const [mail] = await waitForMail(d, to);
    expect(mail.parsed.subject).toBe('First mail');
    // Signed with the key whose record the test published from the page's copy button: it verifies.
    expect(await dkimResults(mail.raw, d.dns)).toEqual([{ result: 'pass', domain }]);

    await sidebar('Overview').click();
    await page.reload();
    await page.getByTestId('onboarding').waitFor();
    for (const step of ['domain', 'verify', 'email']) {
      await expect
        .poll(() => page.locator(`[data-step="${step}"]`).getAttribute('data-done'), { timeout: 10_000 })
        .toBe('true');
    }
    expect(await page.locator('[data-step="event"]').getAttribute('data-done')).toBe('false');
    await checkScreen(page, '09-overview-progress');
  }, 60_000);

  it('rotates the keys after a warning that integrations break, and shows the new pair once', async () => {
    await sidebar('API keys').click();
    await expect.poll(() => page.getByTestId('masked-secret').textContent()).toBe(`sk_…${secretKey.slice(-4)}`);
    await checkScreen(page, '10-keys');
    await page.getByTestId('rotate-keys').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('stop working at once').waitFor();
    await checkScreen(page, '11-keys-rotate-confirm');
    await dialog.getByRole('button', { name: 'Rotate keys now' }).click();
    await page.getByTestId('keys-reveal').waitFor();
    const fresh = await copyWith(page, page.getByRole('button', { name: 'Copy secret key' }));
    expect(fresh).not.toBe(secretKey);
    expect((await d.h.request('GET', '/contacts', { key: secretKey })).status).toBe(401);
    expect((await d.h.request('GET', '/contacts', { key: fresh })).status).toBe(200);
    secretKey = fresh;
    await checkScreen(page, '12-keys-rotated');
    await page.getByRole('button', { name: 'I have saved the keys' }).click();
    await expect.poll(() => page.getByTestId('masked-secret').textContent()).toBe(`sk_…${fresh.slice(-4)}`);
  }, 60_000);

  it('renames the project and sets its tracking mode', async () => {
    await sidebar('Settings').click();
    const name = page.getByRole('textbox', { name: 'Project name' });
    await name.fill('Acme store');
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => page.getByTestId('project-switcher').textContent()).toContain('Acme store');
    await page.getByRole('radio', { name: 'Marketing email only' }).check();
    await page.getByRole('button', { name: 'Save tracking mode' }).click();
    await expect
      .poll(async () => (await d.h.sql('select name, tracking from projects where id = $1', [projectId]))[0])
      .toEqual({ name: 'Acme store', tracking: 'MARKETING_ONLY' });
    await checkScreen(page, '13-settings-general');
  }, 60_000);

  it('manages members: no invitation before the owner confirmed their address, add a verified teammate, change role, remove', async () => {
    const teammate = await createVerifiedUser(d.h);
    await page.getByRole('tab', { name: 'Members' }).click();
    await page.waitForURL(`**${inApp('/settings/members')}`);
    const input = page.getByRole('textbox', { name: 'Email' });
    await input.fill(stranger);
    await page.getByRole('button', { name: 'Add member' }).click();
    // The owner has not confirmed their own address yet: invitations (mail to anyone) wait for that.
    await page.getByText('Confirm your own email address before inviting anyone').first().waitFor();
    await checkScreen(page, '14-settings-members-unconfirmed');
    expect(await d.h.sql('select 1 from invitations where project_id = $1', [projectId])).toEqual([]);

    await input.fill(teammate.email);
    await page.getByRole('combobox', { name: 'Role' }).selectOption('ADMIN');
    await page.getByRole('button', { name: 'Add member' }).click();
    const row = page.locator(`tr[data-row="${teammate.email}"]`);
    await row.waitFor();
    await checkScreen(page, '14-settings-members');

    await row.getByRole('combobox', { name: `Role of ${teammate.email}` }).selectOption('MEMBER');
    await expect
      .poll(
        async () =>
          (
            await d.h.sql('select role from memberships where project_id = $1 and user_id = $2', [
              projectId,
              teammate.id,
            ])
          )[0]?.role,
      )
      .toBe('MEMBER');
    await row.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove member' }).click();
    await row.waitFor({ state: 'detached' });
    expect(
      await d.h.sql('select 1 from memberships where project_id = $1 and user_id = $2', [projectId, teammate.id]),
    ).toEqual([]);
  }, 60_000);

  it('shows consumption as bars and puts the server field error of a limit next to its field', async () => {
    await page.getByRole('tab', { name: 'Billing and limits' }).click();
    const transactional = page.getByRole('textbox', { name: 'Transactional (/v1/send)' });
    // Passes the form's whole-number rule, but is beyond what the server accepts: its 422 names the field.
    await transactional.fill('99999999999999999999');
    await page.getByRole('button', { name: 'Save limits' }).click();
    const fieldError = page.locator(`#${await transactional.getAttribute('id')}-error`);
    await expect.poll(() => fieldError.textContent()).toMatch(/must be at most/);
    expect(await transactional.inputValue()).toBe('99999999999999999999');

    await transactional.fill('1000');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await expect
      .poll(
        async () => (await d.h.sql('select billing_limits from projects where id = $1', [projectId]))[0].billing_limits,
      )
      .toEqual({ transactional: 1000, campaigns: null, workflows: null });
    await expect
      .poll(() => page.getByRole('progressbar', { name: 'Transactional (/v1/send): 1 of 1,000' }).count())
      .toBe(1);
    await checkScreen(page, '15-settings-billing');
  }, 60_000);

  it('creates a second project from the switcher and switches between the two', async () => {
    await page.getByTestId('project-switcher').click();
    await page.getByRole('menuitem', { name: 'New project' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Project name' }).fill('Side project');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await dialog.getByTestId('keys-reveal').waitFor();
    await checkScreen(page, '16-project-new-from-switcher');
    await dialog.getByRole('button', { name: /continue/ }).click();
    await expect.poll(() => page.getByTestId('project-switcher').textContent()).toContain('Side project');
    await page.getByTestId('onboarding').waitFor();
    expect(url().pathname).not.toBe(inApp(''));

    await page.getByTestId('project-switcher').click();
    await page.getByRole('menuitem', { name: 'Acme store' }).click();
    await page.waitForURL(`**${inApp('')}`);
    await expect.poll(() => page.getByTestId('project-switcher').textContent()).toContain('Acme store');
  }, 60_000);

  it("shows the project's contacts and the projects list", async () => {
    await sidebar('Contacts').click();
    await page.waitForURL(`**${inApp('/contacts')}`);
    await page.locator('[data-testid="contacts-count"], [data-testid="empty-state"]').first().waitFor();
    // A toast of the previous step fading out would be measured at half opacity: let it go first.
    await expect.poll(() => page.locator('.mantine-Notification-root').count(), { timeout: 10_000 }).toBe(0);
    await checkScreen(page, '17-contacts');
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'All projects' }).click();
    await page.locator('tr[data-row="Acme store"]').waitFor();
    await page.locator('tr[data-row="Side project"]').waitFor();
    await checkScreen(page, '18-projects');
  }, 60_000);

  it('goes to the login page when the session is gone and comes back to the intended page after logging in', async () => {
    await page.goto(inApp('/settings'));
    await page.getByRole('textbox', { name: 'Project name' }).waitFor();
    await context.clearCookies();
    await page.getByRole('tab', { name: 'Members' }).click();
    await page.waitForURL('**/app/login?next=*');
    expect(url().searchParams.get('next')).toBe(`/p/${projectId}/settings/members`);
    await page.getByTestId('login-reason').waitFor();
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('textbox', { name: 'Password' }).fill('wrong password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'That email and password do not match.' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Email' }).inputValue()).toBe(email);
    await checkScreen(page, '19-login-failed');
    await page.getByRole('textbox', { name: 'Password' }).fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`**${inApp('/settings/members')}`);
    await page.locator(`tr[data-row="${email}"]`).waitFor();
  }, 60_000);

  it('confirms the email address with the mailed link', async () => {
    await page.getByTestId('verify-banner').waitFor();
    const [mail] = await waitForMail(d, email);
    await page.goto(linkIn(mail.parsed.text));
    await page.getByTestId('email-verified').waitFor();
    expect(url().pathname).toBe('/app/verify-email');
    await checkScreen(page, '20-email-verified');
    await page.goto(inApp(''));
    await page.getByTestId('onboarding').waitFor();
    expect(await page.getByTestId('verify-banner').count()).toBe(0);

    // Confirmed, the owner invites an address without an account: a pending invitation, listed until accepted.
    await page.goto(inApp('/settings/members'));
    await page.getByRole('textbox', { name: 'Email' }).fill(stranger);
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByText(`${stranger} was invited as member`).waitFor();
    await page.locator(`tr[data-row="${stranger}"]`).getByText('pending').waitFor();
    expect(
      await d.h.sql('select status, role from invitations where project_id = $1 and email = $2', [projectId, stranger]),
    ).toEqual([{ status: 'pending', role: 'MEMBER' }]);
  }, 60_000);

  it('logs out, resets the password with the mailed link, and logs in with the new one', async () => {
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.waitForURL('**/app/login');
    expect((await context.cookies()).find((c) => c.name === 'session')).toBeUndefined();

    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    // The login page has an Email field too: fill the reset form's, once its screen has loaded.
    await page.waitForURL('**/app/forgot-password');
    await page.getByRole('button', { name: 'Send reset link' }).waitFor();
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByTestId('reset-requested').waitFor();
    await checkScreen(page, '21-password-reset-requested');
    const mails = await waitForMail(d, email, 2);
    const resetMail = mails.find((m) => /reset/i.test(m.parsed.subject ?? ''))!;
    await page.goto(linkIn(resetMail.parsed.text));
    expect(url().pathname).toBe('/app/reset-password');
    password = 'another long password';
    await page.getByRole('textbox', { name: 'New password', exact: true }).fill(password);
    await page.getByRole('textbox', { name: 'Repeat the new password' }).fill('something else');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('The two passwords differ').waitFor();
    await checkScreen(page, '22-password-reset');
    await page.getByRole('textbox', { name: 'Repeat the new password' }).fill(password);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.waitForURL('**/app/login?reset=done');
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('textbox', { name: 'Password' }).fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`**${inApp('')}`);
  }, 60_000);

  it('resets the project after its name is typed: its emails are gone, its domain and keys stay', async () => {
    const count = async (table: string) =>
      (await d.h.sql(`select count(*)::int as n from ${table} where project_id = $1`, [projectId]))[0].n;
    expect(await count('emails')).toBe(1);
    await page.goto(inApp('/settings'));
    await page.getByRole('button', { name: 'Reset…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('confirm-input').fill('Acme store');
    await dialog.getByRole('button', { name: 'Reset project' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(await count('emails')).toBe(0);
    expect(await count('domains')).toBe(1);
    expect((await d.h.request('GET', '/contacts', { key: secretKey })).status).toBe(200);
  }, 60_000);

  it('deletes the project only after its name is typed', async () => {
    await page.goto(inApp('/settings'));
    await page.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog');
    const confirm = dialog.getByRole('button', { name: 'Delete project' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByTestId('confirm-input').fill('Acme');
    expect(await confirm.isDisabled()).toBe(true);
    await checkScreen(page, '23-project-delete-confirm');
    await dialog.getByTestId('confirm-input').fill('Acme store');
    await confirm.click();
    await page.waitForURL('**/app/projects');
    await page.locator('tr[data-row="Side project"]').waitFor();
    await expect.poll(() => page.locator('tr[data-row="Acme store"]').count()).toBe(0);
    expect(await d.h.sql('select 1 from projects where id = $1', [projectId])).toEqual([]);
    expect((await d.h.request('GET', '/contacts', { key: secretKey })).status).toBe(401);
    expect(problems.errors).toEqual([]);
  }, 60_000);
});

describe('dashboard: sign-ups turned off', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ DISABLE_SIGNUPS: 'true' });
  }, 120_000);
  afterAll(async () => d?.close());

  // DISABLE_SIGNUPS=true is SIGNUP=invite (issue 39): invited people still sign up with the form.
  it('says on the sign-up page that accounts are for invited people only', async () => {
    const { page } = await d.open();
    await page.goto('/app/signup');
    await page.getByTestId('signup-mode-invite').waitFor();
    expect(await page.getByRole('button', { name: 'Create account' }).count()).toBe(1);
    await checkScreen(page, '24-signups-invite-only');
  }, 60_000);
});
