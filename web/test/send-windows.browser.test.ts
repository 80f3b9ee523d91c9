import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';
import { checkBothSizes } from './support/browser.js';
import { startDashboard, type Dashboard } from './support/dashboard.js';

const ZONES = ['America/New_York', 'America/New_York', 'Europe/Berlin', 'Asia/Tokyo', 'Asia/Tokyo', 'Asia/Tokyo'];

/** The composer's delivery choices in real Chromium: modes, window, the curve before sending. */
describe('dashboard: send windows and local time', () => {
  let d: Dashboard;
  let page: Page;
  let project: TestProject;

  beforeAll(async () => {
    d = await startDashboard();
    project = await createProject(d.h, await createVerifiedUser(d.h), 'Morning mail');
    // The composer offers verified sender domains only.
    await createVerifiedDomain(d.h, project.id);
    for (const [i, timezone] of ZONES.entries()) {
      const r = await d.h.request('POST', '/contacts', {
        key: project.secretKey,
        body: { email: `reader${i}@zones.test`, subscribed: true, data: { timezone } },
      });
      expect(r.status).toBe(201);
    }
    let context;
    ({ context, page } = await d.open());
    await context.addCookies([{ name: 'session', value: project.owner.cookie.slice('session='.length), url: d.h.url }]);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('offers now, spread and local time with a window, and draws the expected curve before sending', async () => {
    page.setDefaultTimeout(15_000);
    await page.goto(`/app/p/${project.id}/campaigns/new`);
    await page.getByRole('textbox', { name: /^Name/ }).fill('Good morning');
    await page.getByRole('textbox', { name: /^Subject/ }).fill('Your morning note');
    const delivery = page.getByTestId('delivery');
    // Send now: the whole audience in one hour, counted before saving.
    await delivery
      .getByTestId('send-curve')
      .getByText(/6 mails in the hour/)
      .waitFor();
    // Spread over 3 hours: two mails an hour, still drawn from the count.
    await delivery.getByLabel('Spread over hours').check();
    await delivery.getByRole('textbox', { name: /Spread over \(hours\)/ }).fill('3');
    await delivery
      .getByTestId('send-curve')
      .getByText(/6 mails from .* at most 2 in one hour/)
      .waitFor();
    // At a local time: the zones are the server's to read, once the draft is saved.
    await delivery.getByLabel('At a local time').check();
    await delivery
      .getByTestId('send-curve-note')
      .getByText(/Save the draft/)
      .waitFor();
    // A window that closes before it opens is refused in a sentence, before asking the server.
    await delivery.getByLabel('Only send inside a window').check();
    await delivery.getByLabel('From').fill('18:00');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await delivery.getByText('The window must close after it opens.').waitFor();
    await delivery.getByLabel('From').fill('08:00');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/campaigns\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    const [row] = await d.h.sql('select delivery from campaigns where id = $1', [id]);
    expect(row.delivery).toEqual({
      mode: 'local-time',
      localTime: '09:00',
      window: { from: '08:00', to: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
    });

    // Editing it: the curve comes from the audience's zones (three zones, three bars).
    await page.goto(`/app/p/${project.id}/campaigns/${id}/edit`);
    const curve = page.getByTestId('delivery').getByTestId('send-curve');
    await curve.getByText(/6 mails from .* at most 3 in one hour/).waitFor();
    const api = await d.h.request('GET', `/campaigns/${id}/delivery-preview`, { key: project.secretKey });
    expect(api.body.buckets.map((b: { count: number }) => b.count).sort()).toEqual([1, 2, 3]);
    await checkBothSizes(page, 'w1-delivery-local-time', () => curve.locator('canvas').first().waitFor());
    // The unsaved choice is drawn at once: spread over 6 hours without the window, one an hour.
    await page.getByTestId('delivery').getByLabel('Only send inside a window').uncheck();
    await page.getByTestId('delivery').getByLabel('Spread over hours').check();
    await page
      .getByTestId('delivery')
      .getByRole('textbox', { name: /Spread over \(hours\)/ })
      .fill('6');
    await curve.getByText(/6 mails from .* at most 1 in one hour/).waitFor();
    await checkBothSizes(page, 'w2-delivery-spread', () => curve.locator('canvas').first().waitFor());
  }, 120_000);
});
