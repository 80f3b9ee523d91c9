import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { contactToken } from '../../src/emails/render/tokens.js';
import { checkBothSizes, type PageProblems } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

/**
 * The pages a reader reaches from an email (issue 35), in real Chromium: the brand colour set in the
 * dashboard's settings, the preference centre used with its own forms (the pages run no script), a
 * topic mail's one-click page, and the page of a broken link. Each axe clean at desktop and phone width.
 */
describe('reader pages: preference centre and unsubscribe', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  let contactId: string;
  const topics: Record<string, string> = {};

  beforeAll(async () => {
    d = await startDashboard();
    p = await createProject(d.h, await createVerifiedUser(d.h), 'Harbour Weekly');
    for (const [name, description] of [
      ['Release notes', 'Every new version, the day it ships'],
      ['Weekly digest', 'The best of the week, on Fridays'],
      ['Events', null],
    ] as const) {
      const res = await d.h.request('POST', '/topics', {
        key: p.secretKey,
        body: { name, description, default: 'opt-in' },
      });
      expect(res.status).toBe(201);
      topics[name] = res.body.id;
    }
    const c = await d.h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'sam@reader.test', topics: { 'Release notes': true, 'Weekly digest': true } },
    });
    expect(c.status).toBe(201);
    contactId = c.body.id;
    let context;
    ({ context, page, problems } = await d.open());
    await context.addCookies([{ name: 'session', value: p.owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('sets the brand colour in the settings', async () => {
    await page.goto(`/app/p/${p.id}/settings`);
    const input = page.getByRole('textbox', { name: 'Brand colour' });
    await input.fill('#0b7285');
    await page.getByRole('button', { name: 'Save brand colour' }).click();
    await page.getByText('Brand colour saved.').waitFor();
    await checkBothSizes(page, 'r1-settings-brand');
    const [row] = await d.h.sql('select brand_color from projects where id = $1', [p.id]);
    expect(row.brand_color).toBe('#0b7285');
  });

  it('changes topics and pauses emails on the preference centre, without script', async () => {
    await page.goto(`/preferences/${contactToken(d.h.deps.secret, contactId)}`);
    await page.getByRole('heading', { name: 'Your email preferences' }).waitFor();
    expect(await page.getByRole('checkbox', { name: /Release notes/ }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /Events/ }).isChecked()).toBe(false);
    await checkBothSizes(page, 'r2-preferences');

    await page.getByRole('checkbox', { name: /Weekly digest/ }).uncheck();
    await page.getByRole('checkbox', { name: /Events/ }).check();
    await page.getByRole('button', { name: 'Save preferences' }).click();
    await page.getByText('Your preferences are saved.').waitFor();
    const rows = await d.h.sql<{ topic_id: string; subscribed: boolean }>(
      'select topic_id, subscribed from contact_topics where contact_id = $1',
      [contactId],
    );
    expect(Object.fromEntries(rows.map((r) => [r.topic_id, r.subscribed]))).toEqual({
      [topics['Release notes']]: true,
      [topics['Weekly digest']]: false,
      [topics.Events]: true,
    });
    await checkBothSizes(page, 'r3-preferences-saved');

    await page.getByRole('radio', { name: '3 months' }).check();
    await page.getByRole('button', { name: 'Pause emails' }).click();
    await page.getByText('Emails are paused for 3 months.').waitFor();
    await checkBothSizes(page, 'r4-preferences-paused');
    const [c] = await d.h.sql('select snoozed_until from contacts where id = $1', [contactId]);
    expect(c.snoozed_until).not.toBeNull();
    expect(problems.errors).toEqual([]);
  });

  it("a topic mail's unsubscribe page leaves that topic; a broken link says so", async () => {
    await page.goto(`/unsubscribe/${contactToken(d.h.deps.secret, contactId, topics['Release notes'])}`);
    await page.getByRole('heading', { name: 'Unsubscribe from Release notes' }).waitFor();
    await checkBothSizes(page, 'r5-unsubscribe-topic');
    await page.getByRole('button', { name: 'Unsubscribe from Release notes' }).click();
    await page.getByRole('heading', { name: 'Unsubscribed from Release notes' }).waitFor();
    await checkBothSizes(page, 'r6-unsubscribed-topic');
    const [c] = await d.h.sql('select subscribed from contacts where id = $1', [contactId]);
    expect(c.subscribed).toBe(true);

    const res = await page.goto('/preferences/not-a-real-token');
    expect(res?.status()).toBe(404);
    await page.getByRole('heading', { name: 'This link does not work' }).waitFor();
    await checkBothSizes(page, 'r7-link-broken');
  });

  it('switches the preference centre to German with its language select (issue 38)', async () => {
    await page.goto(`/preferences/${contactToken(d.h.deps.secret, contactId)}`);
    const select = page.getByRole('combobox', { name: /Language of these pages/ });
    expect(await select.inputValue()).toBe('en');
    await select.selectOption({ label: 'Deutsch' });
    await page.getByRole('button', { name: 'Save language' }).click();
    await page.getByText('Ihre Sprache ist gespeichert.').waitFor();
    await page.getByRole('heading', { name: 'Ihre E-Mail-Einstellungen' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.getByRole('combobox', { name: /Sprache dieser Seiten/ }).inputValue()).toBe('de');
    await checkBothSizes(page, 'r8-preferences-german');
    const [c] = await d.h.sql('select data from contacts where id = $1', [contactId]);
    expect(c.data).toMatchObject({ locale: 'de' });
    expect(problems.errors).toEqual([]);
  });
});
