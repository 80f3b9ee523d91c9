import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { checkBothSizes, checkScreen, copyWith, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

/**
 * Scoped keys on the API keys screen in real Chromium against the real server: an empty list, a key
 * refused without a scope and with a bad address, then created and revealed once (the copied key works
 * for its scope only), listed, and deleted after confirmation (it then fails).
 */
describe('dashboard: scoped API keys', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  /** The key the first test revealed. */
  let shown = '';

  beforeAll(async () => {
    d = await startDashboard();
    p = await createProject(d.h, undefined, 'Keyed shop');
    let context;
    ({ context, page, problems } = await d.open());
    await context.addCookies([{ name: 'session', value: p.owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('creates a key with scopes, an address range and a last day, and reveals it once', async () => {
    await page.goto(`/app/p/${p.id}/keys`);
    const section = page.getByTestId('scoped-keys');
    await section.getByText('No scoped keys yet.').waitFor();
    await section.getByRole('button', { name: 'New scoped key' }).click();
    const dialog = page.getByRole('dialog', { name: 'New scoped key' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Website tracker');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByText('Choose at least one thing the key may do.').waitFor();

    await dialog.getByRole('checkbox', { name: 'Tracking: allowed' }).check();
    await dialog.getByRole('checkbox', { name: 'Contacts: read' }).check();
    // A line that looks like an address but is not one: the server names the line.
    await dialog.getByRole('textbox', { name: 'Allowed IP addresses' }).fill('203.0.113.0/24\n10.0.0.0/40');
    const lastDay = new Date(Date.now() + 30 * 86400_000).toLocaleDateString('en-CA');
    await dialog.getByLabel('Expires').fill(lastDay);
    await checkScreen(page, 'sk1-scoped-key-new');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByText(/^Line 2:/).waitFor();
    await dialog.getByRole('textbox', { name: 'Allowed IP addresses' }).fill('203.0.113.0/24\n127.0.0.1');
    await dialog.getByRole('button', { name: 'Create key' }).click();

    const reveal = page.getByTestId('scoped-key-reveal');
    await reveal.waitFor();
    shown = await reveal.getByTestId('scoped-key').innerText();
    expect(shown).toMatch(/^psk_/);
    expect(await copyWith(page, reveal.getByRole('button', { name: /^Copy key/ }))).toBe(shown);
    await checkScreen(page, 'sk2-scoped-key-reveal');

    const [row] = await d.h.sql('select * from api_keys where project_id = $1', [p.id]);
    expect(row).toMatchObject({ name: 'Website tracker', allowed_ips: ['203.0.113.0/24', '127.0.0.1/32'] });
    expect([...row.scopes].sort()).toEqual(['contacts:read', 'track']);
    expect(row.expires_at).not.toBeNull();
    // The key works for its scopes only.
    expect((await d.h.request('GET', '/contacts', { key: shown })).status).toBe(200);
    expect((await d.h.request('POST', '/contacts', { key: shown, body: { email: 'x@example.test' } })).status).toBe(
      403,
    );

    await reveal.getByRole('button', { name: 'I have saved the key' }).click();
    await reveal.waitFor({ state: 'hidden' });
    const listed = page.getByRole('row', { name: /Website tracker/ });
    await listed.waitFor();
    await listed.getByText('contacts:read').waitFor();
    await listed.getByText(p.owner.email).waitFor();
    expect(await listed.innerText()).not.toContain(shown.slice(12));
    await checkBothSizes(page, 'sk3-scoped-keys');
    expect(problems.errors).toEqual([]);
  }, 90_000);

  it('deletes a key after confirmation; it stops working', async () => {
    await page.getByRole('button', { name: 'Delete Website tracker' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this key?' });
    await confirm.getByText(/stops working at once/).waitFor();
    await checkScreen(page, 'sk4-scoped-key-delete');
    await confirm.getByRole('button', { name: 'Delete key' }).click();
    await page.getByTestId('scoped-keys').getByText('No scoped keys yet.').waitFor();
    expect(await d.h.sql('select id from api_keys where project_id = $1', [p.id])).toEqual([]);
    expect((await d.h.request('GET', '/contacts', { key: shown })).status).toBe(401);
  }, 60_000);
});
