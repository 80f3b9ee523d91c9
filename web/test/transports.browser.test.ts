import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { checkBothSizes, checkScreen, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

/**
 * The Sending tab of project settings in real Chromium against the real server: the instance's
 * default transport, a transport added and tested against a local SMTP server, a routing rule that
 * uses it, a delete refused in words while the rule lists it, its health in words, and the dialog that
 * keeps a saved password.
 */
describe('dashboard: sending transports', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  let sinkPort: string;

  beforeAll(async () => {
    // The test call goes to the local SMTP sink on 127.0.0.1.
    d = await startDashboard({ TRANSPORT_ALLOW_PRIVATE_ADDRESSES: 'true' });
    sinkPort = new URL(d.smtp.url).port;
    p = await createProject(d.h, await createVerifiedUser(d.h), 'Relay shop');
    let context;
    ({ context, page, problems } = await d.open());
    await context.addCookies([{ name: 'session', value: p.owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('shows the default transport, adds one and tests it against a local SMTP server', async () => {
    await page.goto(`/app/p/${p.id}/settings`);
    await page.getByRole('tab', { name: 'Sending' }).click();
    await page.waitForURL(/\/settings\/sending$/);
    await page.getByText(`SMTP relay 127.0.0.1:${sinkPort}. Set on the server`).waitFor();
    await page.getByText('No transports of this project yet').waitFor();
    await page.getByText('No rules: every mail goes through the default transport.').waitFor();

    await page.getByRole('button', { name: 'Add transport' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a transport' });
    await dialog.getByRole('button', { name: 'Add transport' }).click();
    await dialog.getByText('Give the transport a name').waitFor();
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Backup relay');
    await dialog.getByRole('textbox', { name: 'SMTP URL' }).fill(`smtp://127.0.0.1:${sinkPort}`);
    await checkBothSizes(page, 'transports-1-add-dialog');
    await dialog.getByRole('button', { name: 'Add transport' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Backup relay/ });
    await row.getByText('Healthy').waitFor();

    await page.getByRole('button', { name: 'Test Backup relay' }).click();
    const message = page.getByTestId('test-message');
    await message.waitFor();
    expect(await message.innerText()).toBe(`Connected to 127.0.0.1:${sinkPort} without TLS; no login is set.`);
    await page.getByText('Backup relay works').waitFor();
  }, 90_000);

  it('makes a routing rule with the transport, and a delete is refused while the rule lists it', async () => {
    await page.getByRole('button', { name: 'Add a rule' }).click();
    const rule = page.getByRole('region', { name: 'Rule 1' });
    await rule.getByLabel('Stream', { exact: true }).click();
    await page.getByRole('option', { name: 'Marketing' }).click();
    await rule.getByLabel('From domain').fill('News.Example.com');
    // A new rule starts with the default; the relay is picked after it, as its fallback.
    // The pills' box takes the click for its input.
    await rule.getByLabel('Transports, in the order tried').click({ force: true });
    await page.getByRole('option', { name: 'Backup relay' }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await page.getByText('Routing rules saved.').waitFor();
    const [t] = await d.h.sql('select id from transports where project_id = $1', [p.id]);
    expect(
      await d.h.sql('select position, match, transports from transport_rules where project_id = $1', [p.id]),
    ).toEqual([
      { position: 0, match: { stream: 'marketing', fromDomain: 'news.example.com' }, transports: ['default', t.id] },
    ]);
    await expect.poll(() => rule.getByLabel('From domain').inputValue()).toBe('news.example.com');

    await page.getByRole('button', { name: 'Delete Backup relay' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this transport?' });
    await confirm.getByRole('button', { name: 'Delete transport' }).click();
    await confirm
      .getByText('The transport "Backup relay" is used by routing rule 1; remove it from that rule first.')
      .waitFor();
    await checkBothSizes(page, 'transports-2-delete-refused');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(await d.h.sql('select 1 from transports where id = $1', [t.id])).toHaveLength(1);
  }, 90_000);

  it('says a failing transport is failing over and since when, and keeps a saved password', async () => {
    const [t] = await d.h.sql('select id from transports where project_id = $1', [p.id]);
    await d.h.sql(
      `insert into transport_health (transport, project_id, state, failures, opened_at, retry_at, last_error)
       values ($1, $2, 'open', 5, now(), now() + interval '1 minute', 'connection refused')`,
      [t.id, p.id],
    );
    await page.reload();
    const row = page.getByRole('row', { name: /Backup relay/ });
    await row.getByText(/^Failing over since \d\d:\d\d: connection refused$/).waitFor();
    await checkBothSizes(page, 'transports-3-sending');
    // The same screen in dark mode (the dashboard follows the system's colour scheme).
    await page.emulateMedia({ colorScheme: 'dark' });
    await checkScreen(page, 'transports-3-sending-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByRole('button', { name: 'Edit Backup relay' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit transport' });
    await dialog.getByRole('textbox', { name: 'SMTP URL' }).fill(`smtp://mailer@127.0.0.1:${sinkPort}`);
    await dialog.getByRole('textbox', { name: 'Password' }).fill('s3cret-pass');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.getByText('credentials saved').waitFor();
    await page.getByRole('button', { name: 'Edit Backup relay' }).click();
    const again = page.getByRole('dialog', { name: 'Edit transport' });
    await expect
      .poll(() => again.getByRole('textbox', { name: 'Password' }).getAttribute('placeholder'))
      .toBe('Saved — leave empty to keep');
    await checkBothSizes(page, 'transports-4-edit-saved-password');
    await again.getByRole('button', { name: 'Save' }).click();
    await again.waitFor({ state: 'hidden' });
    const [row2] = await d.h.sql('select settings, secret from transports where id = $1', [t.id]);
    expect(row2.settings).toEqual({ url: `smtp://mailer@127.0.0.1:${sinkPort}` });
    expect(row2.secret).not.toBeNull();
    expect(JSON.stringify(row2)).not.toContain('s3cret-pass');
    expect(problems.errors).toEqual([]);
  }, 90_000);
});
