import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';
import { checkBothSizes, checkScreen, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

/**
 * Settings → Audit log in real Chromium against the real server: changes made through the dashboard's
 * session and the secret key are listed newest first with who made them, a change's fields open before
 * → after, the filters narrow the list, and "Load more" fetches the next page.
 */
describe('dashboard: audit log', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  let templateId: string;

  beforeAll(async () => {
    d = await startDashboard();
    p = await createProject(d.h, await createVerifiedUser(d.h), 'Audited shop');
    const { domain } = await createVerifiedDomain(d.h, p.id);
    const session = { cookie: p.owner.cookie, headers: { 'x-project-id': p.id } };
    const created = await d.h.request('POST', '/templates', {
      ...session,
      body: { name: 'Welcome', subject: 'Hello', body: '<p>Hi</p>', from: `hi@${domain}` },
    });
    expect(created.status).toBe(201);
    templateId = created.body.id;
    // 26 renames through the secret key: more than one page (25) of entries.
    for (let i = 1; i <= 26; i++) {
      const res = await d.h.request('PATCH', `/templates/${templateId}`, {
        key: p.secretKey,
        body: { name: `Welcome v${i}` },
      });
      expect(res.status).toBe(200);
    }
    const seg = await d.h.request('POST', '/segments', { ...session, body: { name: 'VIPs', type: 'STATIC' } });
    expect(seg.status).toBe(201);
    let context;
    ({ context, page, problems } = await d.open());
    await context.addCookies([{ name: 'session', value: p.owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('lists changes newest first with who made them, and opens a change', async () => {
    await page.goto(`/app/p/${p.id}/settings/audit`);
    const rows = page.locator('tr[data-row]');
    await rows.first().waitFor();
    expect(await rows.first().getAttribute('data-row')).toBe('segment.create');
    await expect.poll(() => rows.count()).toBe(25);
    const newest = rows.first();
    await newest.getByText(p.owner.email).waitFor();
    await newest.getByRole('link', { name: 'Segment created' }).waitFor();
    const rename = rows.nth(1);
    expect(await rename.getAttribute('data-row')).toBe('template.update');
    await rename.getByText('Secret key').waitFor();
    await rename.getByRole('button', { name: 'Show 1 change' }).click();
    await rename.getByTestId('audit-changes').getByText('Welcome v25').waitFor();
    await rename.getByTestId('audit-changes').getByText('Welcome v26').waitFor();
    await checkBothSizes(page, 'audit1-log');
    expect(await rename.getByRole('link', { name: 'Template changed' }).getAttribute('href')).toBe(
      `/app/p/${p.id}/templates/${templateId}`,
    );
  }, 60_000);

  it('loads more, then filters by kind and by who', async () => {
    const rows = page.locator('tr[data-row]');
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows.count()).toBe(29);
    await page.getByText('That is everything.').waitFor();
    expect(await rows.last().getAttribute('data-row')).toBe('project.create');

    await page.getByRole('combobox', { name: 'What changed' }).click();
    await page.getByRole('option', { name: 'Segment', exact: true }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-row')).toBe('segment.create');
    await page.getByRole('combobox', { name: 'What changed' }).fill('Templ');
    await page.getByRole('option', { name: 'Template', exact: true }).click();
    await expect.poll(() => rows.count()).toBe(25);

    await page.getByRole('combobox', { name: 'Who' }).click();
    await page.getByRole('option', { name: p.owner.email }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-row')).toBe('template.create');
    await checkScreen(page, 'audit2-filtered-1440');

    const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('From').fill(tomorrow);
    await page.getByText('No change matches these filters').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    // Back to the unfiltered list, both pages of it as loaded before.
    await expect.poll(() => rows.count()).toBe(29);
    expect(problems.errors).toEqual([]);
  }, 60_000);

  it('tells a member that the log is for owners and admins', async () => {
    const member = await createVerifiedUser(d.h);
    const added = await d.h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: member.email, role: 'MEMBER' },
    });
    expect(added.status).toBe(201);
    const { context, page: memberPage } = await d.open();
    await context.addCookies([{ name: 'session', value: member.cookie.slice('session='.length), url: d.h.url }]);
    await memberPage.goto(`/app/p/${p.id}/settings/audit`);
    await memberPage.getByText('The audit log is for owners and admins').waitFor();
    await checkScreen(memberPage, 'audit3-member-1440');
    await context.close();
  }, 60_000);
});
