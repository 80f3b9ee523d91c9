import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createProject,
  createUser,
  createVerifiedUser,
  type TestProject,
  type TestUser,
} from '../../test/factories.js';
import { checkScreen, type PageProblems } from './support/browser.js';
import { linkIn, startDashboard, waitForMail, type Dashboard } from './support/dashboard.js';

/**
 * An invitee's path: an owner adds an address whose account is not verified, which gets a pending
 * invitation by mail; its link leads through login and address confirmation to accept, and the invitee
 * lands in the project as the role given.
 */
describe('dashboard: accepting an invitation from its mail', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let project: TestProject;
  let invitee: TestUser;
  let link: string;

  beforeAll(async () => {
    d = await startDashboard();
    project = await createProject(d.h, await createVerifiedUser(d.h), 'Invited project'); // confirmed: it invites
    invitee = await createUser(d.h);
    const added = await d.h.request('POST', `/projects/${project.id}/members`, {
      cookie: project.owner.cookie,
      body: { email: invitee.email, role: 'ADMIN' },
    });
    expect(added.status).toBe(202);
    expect(added.body).toMatchObject({
      email: invitee.email,
      role: 'ADMIN',
      status: 'pending',
      projectName: 'Invited project',
    });
    ({ page, problems } = await d.open());
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('mails a link that, signed out, goes through the login page to the invitation', async () => {
    const mails = await waitForMail(d, invitee.email);
    const mail = mails.find((m) => /invited/.test(m.parsed.subject ?? ''));
    expect(mail?.parsed.subject).toBe('You are invited to join “Invited project” on Pigeon');
    link = linkIn(mail?.parsed.text);
    expect(new URL(link).pathname).toMatch(/^\/invitations\/[0-9a-f-]{36}$/);
    await page.goto(link);
    await page.waitForURL('**/app/login**');
    await page.getByRole('textbox', { name: 'Email' }).fill(invitee.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(invitee.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/app/invitations/**');
  }, 60_000);

  it('asks an unverified invitee to confirm the address first, then offers accept and decline', async () => {
    await page.getByText('Confirm your address first').waitFor();
    await d.h.sql('update users set email_verified = true where id = $1', [invitee.id]);
    await page.reload();
    await page.getByRole('button', { name: 'Accept and join' }).waitFor();
    await page.getByText('Invited project').first().waitFor();
    await checkScreen(page, 'i1-invitation');
  }, 60_000);

  it('accepts: the invitee lands in the project with the invited role, and the link is spent', async () => {
    await page.getByRole('button', { name: 'Accept and join' }).click();
    await page.waitForURL(`**/app/p/${project.id}`);
    expect(
      await d.h.sql('select role from memberships where project_id = $1 and user_id = $2', [project.id, invitee.id]),
    ).toEqual([{ role: 'ADMIN' }]);
    await page.goto(link);
    await page.getByTestId('invitation-missing').waitFor();
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
