import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject, type TestUser } from '../../test/factories.js';
import { checkScreen, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

/**
 * A teammate's view: what their role does not allow is disabled or hidden, a refusal of the server is
 * shown (never swallowed), and another project's URL is "not found".
 */
describe('dashboard: a MEMBER of a project', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let project: TestProject;
  let other: TestProject;
  let otherContactId = '';
  let member: TestUser;

  const inApp = (p: string) => `/app/p/${project.id}${p}`;
  const setRole = async (role: 'ADMIN' | 'MEMBER') => {
    const res = await d.h.request('PATCH', `/projects/${project.id}/members/${member.id}`, {
      cookie: project.owner.cookie,
      body: { role },
    });
    expect(res.status).toBe(200);
  };

  beforeAll(async () => {
    d = await startDashboard();
    project = await createProject(d.h, undefined, 'Team project');
    member = await createVerifiedUser(d.h);
    const added = await d.h.request('POST', `/projects/${project.id}/members`, {
      cookie: project.owner.cookie,
      body: { email: member.email, role: 'ADMIN' },
    });
    expect(added.status).toBe(201);
    other = await createProject(d.h, undefined, 'Someone else');
    const contact = await d.h.request('POST', '/contacts', {
      key: other.secretKey,
      body: { email: 'private@example.test' },
    });
    expect(contact.status).toBe(201);
    otherContactId = contact.body.id;
    ({ page, problems } = await d.open());
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('logs in and lands on the shared project', async () => {
    await page.goto('/app/login');
    await page.getByRole('textbox', { name: 'Email' }).fill(member.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(member.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`**${inApp('')}`);
    await page.getByTestId('onboarding').waitFor();
  }, 60_000);

  it('shows the server refusal, with its request id, when the role was lowered behind the page', async () => {
    await page.goto(inApp('/keys'));
    const rotate = page.getByTestId('rotate-keys');
    expect(await rotate.isEnabled()).toBe(true);
    await setRole('MEMBER');
    await rotate.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Rotate keys now' }).click();
    const alert = dialog.getByRole('alert');
    await alert.getByText('This needs the OWNER or ADMIN role in the project').waitFor();
    // Codes and the request id wait behind "Details", for whoever reports the problem.
    expect(await alert.getByTestId('request-id').count()).toBe(0);
    await alert.getByRole('button', { name: 'Details' }).click();
    expect(await alert.getByTestId('request-id').textContent()).toMatch(/^[0-9a-f-]{36}$/);
    await checkScreen(page, 'm1-member-refused');
    // Nothing changed: the keys still work.
    expect((await d.h.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  }, 60_000);

  it('cannot rotate keys: the button is disabled and says why', async () => {
    await page.reload();
    const rotate = page.getByTestId('rotate-keys');
    await rotate.waitFor();
    expect(await rotate.isDisabled()).toBe(true);
    await rotate.hover({ force: true });
    await page.getByRole('tooltip').getByText('Only owners and admins of this project can do this').waitFor();
    await checkScreen(page, 'm2-member-keys');
  }, 60_000);

  it('cannot manage members: no invite form, no role choice, no remove; only leaving', async () => {
    await page.goto(inApp('/settings/members'));
    await page.getByTestId('members-readonly').waitFor();
    await page.locator(`tr[data-row="${member.email}"]`).waitFor();
    expect(await page.getByRole('button', { name: 'Add member' }).count()).toBe(0);
    expect(await page.getByRole('combobox').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Remove' }).count()).toBe(0);
    expect(await page.locator(`tr[data-row="${member.email}"]`).getByRole('button', { name: 'Leave' }).count()).toBe(1);
    await checkScreen(page, 'm3-member-members');
  }, 60_000);

  it('cannot rename, reset, delete or change limits', async () => {
    await page.goto(inApp('/settings'));
    await page.getByRole('textbox', { name: 'Project name' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Project name' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Reset…' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Delete…' }).isDisabled()).toBe(true);
    await checkScreen(page, 'm4-member-general');
    await page.getByRole('tab', { name: 'Billing and limits' }).click();
    const cap = page.getByRole('textbox', { name: 'Transactional (/v1/send)' });
    await cap.waitFor();
    expect(await cap.isDisabled()).toBe(true);
    await checkScreen(page, 'm5-member-billing');
  }, 60_000);

  it("finds another project's contact URL, and an unknown project, not found", async () => {
    await page.goto(`/app/p/${other.id}/contacts/${otherContactId}`);
    await page.getByTestId('not-found').getByText('Project not found').waitFor();
    expect(await page.getByText('Someone else').count()).toBe(0);
    await checkScreen(page, 'm6-other-project-not-found');
    await page.goto(`/app/p/${randomUUID()}/domains`);
    await page.getByTestId('not-found').waitFor();
    await page.goto(inApp('/no-such-screen'));
    await page.getByTestId('not-found').getByText('Page not found').waitFor();
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
