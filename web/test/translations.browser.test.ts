import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createVerifiedDomain, type TestDomain } from '../../test/sending-fixtures.js';
import { checkBothSizes, type PageProblems } from './support/browser.js';
import { startDashboard, waitForMail, type Dashboard } from './support/dashboard.js';

/**
 * Translations in the dashboard (issue 38, "Per-language variants") in real Chromium against the real
 * server and worker: a German translation is added to a template with the Languages control, saved
 * and still there after a reload; the German tab's preview is German; a test of the German version
 * arrives with the German subject. A campaign sent in two languages reports its counts by language.
 */
describe('dashboard: translations', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  let domain: TestDomain;
  let templateId = '';
  const inApp = (path: string) => `/app/p/${p.id}${path}`;
  const editor = () => page.locator('.cm-content');
  const frameText = () => page.frameLocator('[data-testid="preview-frame"]').locator('body').innerText();
  const german = () => page.getByRole('tab', { name: 'German (de)' });

  beforeAll(async () => {
    d = await startDashboard();
    const owner = await createVerifiedUser(d.h);
    p = await createProject(d.h, owner, 'Translated shop');
    domain = await createVerifiedDomain(d.h, p.id, { dns: d.dns });
    const t = await d.h.request('POST', '/templates', {
      key: p.secretKey,
      body: {
        name: 'Shipping note',
        subject: 'Your order has shipped',
        body: '<p>Your order is on its way.</p>\n',
        from: `shop@${domain.domain}`,
        type: 'TRANSACTIONAL',
      },
    });
    expect(t.status, t.text).toBe(201);
    templateId = t.body.id;
    let context;
    ({ context, page, problems } = await d.open());
    await context.addCookies([{ name: 'session', value: owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('adds a German translation to a template, saves it and finds it after a reload', async () => {
    await page.goto(inApp(`/templates/${templateId}`));
    await editor().waitFor();
    await page.getByRole('button', { name: 'Add language' }).click();
    await page.getByRole('combobox', { name: 'Language', exact: true }).click();
    await page.getByRole('option', { name: 'German (de)' }).click();
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => german().getAttribute('aria-selected')).toBe('true');
    // The translation starts as a copy of the default content: its texts are changed.
    await expect.poll(() => editor().innerText()).toContain('Your order is on its way.');
    await page.getByRole('textbox', { name: 'Subject in German' }).fill('Deine Bestellung ist unterwegs');
    await editor().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('<p>Deine Bestellung ist auf dem Weg.</p>');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Template saved.').waitFor();
    const saved = await d.h.request('GET', `/templates/${templateId}`, { key: p.secretKey });
    expect(saved.body.translations.de).toMatchObject({
      subject: 'Deine Bestellung ist unterwegs',
      body: '<p>Deine Bestellung ist auf dem Weg.</p>',
    });
    expect(saved.body.subject).toBe('Your order has shipped');

    await page.reload();
    await german().click();
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Subject in German' }).inputValue())
      .toBe('Deine Bestellung ist unterwegs');
    await expect.poll(() => editor().innerText()).toContain('Deine Bestellung ist auf dem Weg.');
  }, 120_000);

  it('previews the German tab in German and the default tab in English', async () => {
    await expect.poll(frameText, { timeout: 15_000 }).toContain('Deine Bestellung ist auf dem Weg.');
    await expect.poll(() => page.getByTestId('preview-subject').innerText()).toContain('Deine Bestellung');
    await checkBothSizes(page, 'tr1-template-german', async () => {
      await expect.poll(frameText, { timeout: 15_000 }).toContain('Deine Bestellung ist auf dem Weg.');
    });
    await page.getByRole('tab', { name: 'Default' }).click();
    await expect.poll(frameText, { timeout: 15_000 }).toContain('Your order is on its way.');
    await german().click();
    await expect.poll(frameText, { timeout: 15_000 }).toContain('Deine Bestellung ist auf dem Weg.');
  }, 60_000);

  it('sends a test of the German version, which arrives with the German subject', async () => {
    await page.getByRole('button', { name: 'Send test', exact: true }).click();
    await page.getByText(/^The German version\. /).waitFor();
    await page.getByRole('textbox', { name: 'Send the test to' }).fill('leser@rcpt.test');
    await page.getByRole('button', { name: 'Send test', exact: true }).last().click();
    await page.getByText('Test of the German version sent to leser@rcpt.test').waitFor();
    const [mail] = await waitForMail(d, 'leser@rcpt.test');
    expect(mail.parsed.subject).toBe('[TEST] Deine Bestellung ist unterwegs');
    expect(String(mail.parsed.html)).toContain('Deine Bestellung ist auf dem Weg.');
  }, 60_000);

  it('reports a translated campaign by language', async () => {
    for (const [email, locale] of [
      ['anna@rcpt.test', 'de-AT'],
      ['bob@rcpt.test', null],
    ] as const) {
      const r = await d.h.request('POST', '/contacts', {
        key: p.secretKey,
        body: { email, subscribed: true, data: locale ? { locale } : {} },
      });
      expect(r.status, r.text).toBe(201);
    }
    const c = await d.h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: {
        name: 'Autumn sale',
        subject: 'The autumn sale starts',
        body: '<p>Everything 20 % off.</p>',
        from: `shop@${domain.domain}`,
        type: 'TRANSACTIONAL',
        translations: { de: { subject: 'Der Herbstverkauf beginnt', body: '<p>Alles 20 % günstiger.</p>' } },
      },
    });
    expect(c.status, c.text).toBe(201);
    const id = c.body.data.id as string;
    const s = await d.h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey, body: {} });
    expect(s.status, s.text).toBeLessThan(300);
    const [de] = await waitForMail(d, 'anna@rcpt.test');
    expect(de.parsed.subject).toBe('Der Herbstverkauf beginnt');
    await waitForMail(d, 'bob@rcpt.test');

    await page.goto(inApp(`/campaigns/${id}`));
    const table = page.getByTestId('languages-report');
    await expect
      .poll(() => table.locator('[data-row="de"]').innerText(), { timeout: 20_000 })
      .toMatch(/German \(de\)\s+1\b/);
    await expect.poll(() => table.locator('[data-row="default"]').innerText()).toMatch(/Default content\s+1\b/);
    await checkBothSizes(page, 'tr2-campaign-languages', async () => {
      await table.locator('[data-row="de"]').waitFor();
    });
    expect(problems.errors).toEqual([]);
  }, 90_000);
});
