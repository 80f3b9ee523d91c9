import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, uniqueEmail, type TestProject } from '../../test/factories.js';
import { checkBothSizes, type PageProblems } from './support/browser.js';
import { linkIn, startDashboard, waitForMail, type Dashboard } from './support/dashboard.js';

/**
 * A newcomer's path from an invitation: an owner invites an address that has no account; its mail's
 * link leads through login to sign-up, the confirmation mail's link brings the new account back to
 * the invitation, and accepting lands in the project. A second invitation waits on the projects
 * screen; the account screen changes the password.
 */
describe('dashboard: an invitee without an account signs up from the invitation', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let project: TestProject;
  let second: TestProject;
  const invitee = { email: uniqueEmail('invitee'), password: 'a newcomer password' };
  let link: string;
  const bothSizes = (name: string) => checkBothSizes(page, name);

  beforeAll(async () => {
    d = await startDashboard();
    const owner = await createVerifiedUser(d.h); // confirmed: it invites
    project = await createProject(d.h, owner, 'Invited project');
    second = await createProject(d.h, owner, 'Second project');
    for (const p of [project, second]) {
      const added = await d.h.request('POST', `/projects/${p.id}/members`, {
        cookie: owner.cookie,
        body: { email: invitee.email, role: p === project ? 'ADMIN' : 'MEMBER' },
      });
      expect(added.status).toBe(202);
      expect(added.body).toMatchObject({ email: invitee.email, status: 'pending', projectName: p.name });
    }
    ({ page, problems } = await d.open());
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('mails a designed invitation whose link, through login and sign-up, keeps the invitation', async () => {
    const mails = await waitForMail(d, invitee.email, 2);
    const mail = mails.find((m) => m.parsed.subject === 'You are invited to join “Invited project” on Pigeon');
    expect(mail?.parsed.html).toContain('Open the invitation');
    expect(mail?.parsed.text).not.toMatch(/POST \/|\d{4}-\d\d-\d\dT/);
    link = linkIn(mail?.parsed.text);
    expect(new URL(link).pathname).toMatch(/^\/invitations\/[0-9a-f-]{36}$/);
    await page.goto(link);
    await page.waitForURL('**/app/login?next=**');
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.waitForURL('**/app/signup?next=%2Finvitations%2F**');
    await page.getByRole('textbox', { name: 'Email' }).fill(invitee.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(invitee.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/app/invitations/**');
    await page.getByText('Confirm your address first').waitFor();
  }, 60_000);

  it('brings the new account back to the invitation from the confirmation link; accepting lands in the project', async () => {
    const mails = await waitForMail(d, invitee.email, 3);
    const confirm = mails.find((m) => m.parsed.subject === 'Verify your email address');
    expect(confirm?.parsed.text).toContain('expires in 24 hours');
    await page.goto(linkIn(confirm?.parsed.text));
    await page.waitForURL(`**/app${new URL(link).pathname}`);
    await page.getByRole('button', { name: 'Accept and join' }).waitFor();
    await page.getByText('Invited project').first().waitFor();
    await bothSizes('i1-invitation');
    await page.getByRole('button', { name: 'Accept and join' }).click();
    await page.waitForURL(`**/app/p/${project.id}`);
    const [user] = await d.h.sql<{ id: string }>('select id from users where email = $1', [invitee.email]);
    expect(
      await d.h.sql('select role from memberships where project_id = $1 and user_id = $2', [project.id, user.id]),
    ).toEqual([{ role: 'ADMIN' }]);
  }, 60_000);

  it('shows the other pending invitation on the projects screen, with accept and decline', async () => {
    // The account menu's name starts with the address it shows (WCAG 2.5.3).
    await page.getByRole('button', { name: `${invitee.email}, account menu` }).click();
    await page.getByRole('menuitem', { name: 'All projects' }).click();
    await page.waitForURL('**/app/projects');
    const pending = page.getByTestId('pending-invitations');
    await pending.getByText('Second project').waitFor();
    await page.getByRole('button', { name: 'Accept the invitation to Second project' }).waitFor();
    await bothSizes('i2-projects-pending-invitation');
    await page.getByRole('button', { name: 'Accept the invitation to Second project' }).click();
    await page.waitForURL(`**/app/p/${second.id}`);
    await page.goto(link);
    await page.getByTestId('invitation-missing').waitFor();
  }, 60_000);

  it('changes the password on the account screen: a wrong current one is said at its field', async () => {
    await page.getByRole('button', { name: `${invitee.email}, account menu` }).click();
    await page.getByRole('menuitem', { name: 'Account' }).click();
    await page.waitForURL('**/app/account');
    const current = page.getByLabel(/^Current password/);
    await current.fill('not my password');
    await page.getByLabel(/^New password/).fill('a changed password');
    await page.getByLabel('Repeat the new password').fill('a changed password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('This is not your current password').waitFor();
    expect(await current.getAttribute('aria-invalid')).toBe('true');
    await bothSizes('i3-account-wrong-password');
    await current.fill(invitee.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByTestId('password-changed').waitFor();
    const login = await d.h.request('POST', '/auth/login', {
      body: { email: invitee.email, password: 'a changed password' },
    });
    expect(login.status).toBe(200);
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
