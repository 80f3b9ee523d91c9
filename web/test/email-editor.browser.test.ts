import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createVerifiedDomain, type TestDomain } from '../../test/sending-fixtures.js';
import { checkBothSizes, checkScreen, type PageProblems } from './support/browser.js';
import { startDashboard, waitForMail, type Dashboard } from './support/dashboard.js';

/** A 2×2 PNG (red), enough for the uploads route's content check. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * The visual email editor (issue 38) in real Chromium against the real server and worker: a mail with
 * a heading, an uploaded image, two columns and a button is built only with the editor, by mouse and
 * by keyboard (a block reordered with dnd-kit's keyboard sensor), undone and redone, refused while an
 * image has no alt text, saved, reloaded unchanged, and sent as a test to another address, where it
 * arrives as the preview showed it. The starter gallery opens a starter in the editor.
 */
describe('dashboard: visual email editor', () => {
  let d: Dashboard;
  let page: Page;
  let problems: PageProblems;
  let p: TestProject;
  let domain: TestDomain;
  let templateId = '';
  const inApp = (path: string) => `/app/p/${p.id}${path}`;
  /** The top-level blocks' types, in the canvas's order. */
  const order = () =>
    page
      .locator('[data-list="root"] > [data-block-id]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-block-type')));
  /** The top-level blocks' ids and one-line summaries, as the canvas shows them. */
  const cards = () =>
    page
      .locator('[data-list="root"] [data-block-id]')
      .evaluateAll((els) =>
        els.map(
          (e) =>
            `${e.getAttribute('data-block-type')}: ${e.querySelector('[data-testid="block-select"]')?.getAttribute('aria-label')}`,
        ),
      );
  const addBlock = async (name: string, within = page.locator('[data-list="root"]').last()) => {
    const button = within.getByRole('button', { name: 'Add block' }).last();
    await button.click();
    // The menu this button opened (by its aria-controls): another one may still be closing.
    const menu = page.locator(`[id="${await button.getAttribute('aria-controls')}"]`);
    await menu.getByRole('menuitem', { name, exact: true }).click();
    await menu.waitFor({ state: 'detached' });
  };
  const props = () => page.getByTestId('block-properties');
  const frame = () => page.frameLocator('[data-testid="preview-frame"]');

  beforeAll(async () => {
    d = await startDashboard();
    const owner = await createVerifiedUser(d.h);
    p = await createProject(d.h, owner, 'Editor shop');
    domain = await createVerifiedDomain(d.h, p.id, { dns: d.dns });
    ({ page, problems } = await d.open());
    await page.goto('/app/login');
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(owner.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`**${inApp('')}`);
  }, 120_000);
  afterAll(async () => {
    await d?.close();
  });

  it('builds heading, image, two columns and a button with the mouse and the keyboard', async () => {
    await page.goto(inApp('/templates/new'));
    await page.getByRole('button', { name: 'Visual editor' }).click();
    await page.getByTestId('email-canvas').waitFor();
    await page.getByRole('textbox', { name: 'Template name' }).fill('Welcome mail');
    await page.getByRole('textbox', { name: 'From address' }).fill(`hello@${domain.domain}`);
    await page.getByRole('textbox', { name: 'Subject' }).fill('Welcome to the shop');

    // Mouse: a heading and an image, uploaded through the project's uploads.
    await addBlock('Heading');
    await props().getByRole('textbox', { name: 'Heading text' }).fill('Welcome aboard');
    await addBlock('Image');
    await props().locator('input[type=file]').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
    await expect
      .poll(() => props().getByRole('textbox', { name: 'Image address' }).inputValue())
      .toMatch(/^https?:\/\/.+/);

    // Keyboard: the menu opens with Enter and is walked with the arrows.
    const rootAdd = page.locator('[data-list="root"]').getByRole('button', { name: 'Add block' }).last();
    await rootAdd.focus();
    await page.keyboard.press('Enter');
    const twoColumns = page.getByRole('menuitem', { name: 'Two columns' });
    await twoColumns.waitFor();
    while (!(await twoColumns.evaluate((el) => el === document.activeElement))) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await twoColumns.waitFor({ state: 'detached' });
    const columns = page.locator('[data-block-type="columns"]');
    await columns.waitFor();
    await addBlock('Text', columns.locator('[data-list$="/col/0"]'));
    await addBlock('Text', columns.locator('[data-list$="/col/1"]'));
    // Rich text with the toolbar: type, select the last word, make it bold, and the preview shows it.
    await props().getByTestId('rich-text').click();
    await page.keyboard.type('Hello reader');
    await page.keyboard.press('Shift+Control+ArrowLeft');
    await props().getByRole('button', { name: 'Bold' }).click();
    await expect.poll(() => frame().locator('strong', { hasText: 'reader' }).count(), { timeout: 15_000 }).toBe(1);
    // The toolbar and the editable text as a reader of the screen gets them (axe, both widths).
    await checkScreen(page, 'ee1-rich-text');
    await addBlock('Button');
    await props().getByRole('textbox', { name: 'Label' }).fill('Open your account');
    await props().getByRole('textbox', { name: 'Link' }).fill('https://example.com/account');
    expect(await order()).toEqual(['heading', 'image', 'columns', 'button']);

    // Keyboard reordering (dnd-kit): the button's handle, Space, up, Space: it goes above the columns.
    const handle = page.getByRole('button', { name: 'Drag Button 4 of 4' });
    const buttonId = await page.locator('[data-block-type="button"]').getAttribute('data-block-id');
    const columnsId = await columns.getAttribute('data-block-id');
    await handle.focus();
    await page.keyboard.press('Space');
    // Picked up: dnd-kit marks the handle pressed (and listens for the arrows from then on).
    await expect.poll(() => handle.getAttribute('aria-pressed')).toBe('true');
    await expect
      .poll(() => page.locator('[id^="DndLiveRegion"]').innerText())
      .toContain(`Draggable item ${buttonId} was moved over droppable area ${buttonId}`);
    await page.keyboard.press('ArrowUp');
    await expect
      .poll(() => page.locator('[id^="DndLiveRegion"]').innerText())
      .toContain(`moved over droppable area ${columnsId}`);
    await page.keyboard.press('Space');
    await expect.poll(order).toEqual(['heading', 'image', 'button', 'columns']);

    // Undo (Ctrl+Z outside a text field) and redo (the button).
    await page.getByRole('button', { name: /^Drag Button/ }).focus();
    await page.keyboard.press('Control+Z');
    await expect.poll(order).toEqual(['heading', 'image', 'columns', 'button']);
    await page.getByRole('button', { name: 'Redo' }).click();
    await expect.poll(order).toEqual(['heading', 'image', 'button', 'columns']);

    await expect.poll(() => frame().locator('body').innerText(), { timeout: 15_000 }).toContain('Welcome aboard');
    expect(problems.errors).toEqual([]);
  }, 120_000);

  it('refuses to save while the image has no alt text; the check list points at the image', async () => {
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByText('Not saved: fix what the check list names first.').waitFor();
    expect(await d.h.sql('select 1 from templates where project_id = $1', [p.id])).toEqual([]);
    const item = page.getByTestId('check-errors').getByRole('button', { name: /alt text/ });
    await item.click();
    await expect.poll(() => page.locator('[data-block-type="image"]').getAttribute('data-selected')).toBe('true');
    await props().getByRole('textbox', { name: 'Alt text' }).fill('The shop logo');
    await page.getByTestId('check-errors').waitFor({ state: 'detached' });
  }, 60_000);

  it('saves, and a reload shows the same document', async () => {
    await page.getByRole('button', { name: 'Create template' }).click();
    // Warnings (if the server has any for this mail) ask first.
    const anyway = page.getByRole('button', { name: 'Save anyway' });
    await Promise.race([page.waitForURL(/\/templates\/[0-9a-f-]{36}$/), anyway.waitFor().then(() => anyway.click())]);
    await page.waitForURL(/\/templates\/[0-9a-f-]{36}$/);
    templateId = new URL(page.url()).pathname.split('/').pop()!;
    const [row] = await d.h.sql<{ format: string; blocks: { blocks: Array<{ type: string }> } }>(
      'select format, blocks from templates where id = $1',
      [templateId],
    );
    expect(row.format).toBe('blocks');
    expect(row.blocks.blocks.map((b) => b.type)).toEqual(['heading', 'image', 'button', 'columns']);
    await page.getByTestId('email-canvas').waitFor();
    const before = await cards();
    await page.reload();
    await page.getByTestId('email-canvas').waitFor();
    await expect.poll(cards).toEqual(before);
    await checkBothSizes(page, 'ee1-editor', async () => {
      await frame().locator('body').waitFor();
    });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('switch', { name: 'Dark mode (simulated)' }).check();
    await checkScreen(page, 'ee1-editor-dark');
    await page.getByRole('switch', { name: 'Dark mode (simulated)' }).uncheck();
    await page.emulateMedia({ colorScheme: 'light' });
  }, 120_000);

  it('sends a test to another address; the mail that arrives is what the preview showed', async () => {
    await expect.poll(() => frame().locator('body').innerText(), { timeout: 15_000 }).toContain('Open your account');
    const previewHtml = (await page.getByTestId('preview-frame').getAttribute('srcdoc')) ?? '';
    await page.getByRole('button', { name: 'Send test', exact: true }).click();
    await page.getByRole('textbox', { name: 'Send the test to' }).fill('reader@rcpt.test');
    await page.getByRole('button', { name: 'Send test', exact: true }).last().click();
    await page.getByText('Test sent to reader@rcpt.test').waitFor();
    const [mail] = await waitForMail(d, 'reader@rcpt.test');
    expect(mail.parsed.subject).toBe('[TEST] Welcome to the shop');
    // The same mail: its words, its pictures and its links (a test is not tracked, so links are as written).
    const shape = (html: string) =>
      page.evaluate((h) => {
        const doc = new DOMParser().parseFromString(h, 'text/html');
        return {
          text: (doc.body.textContent ?? '').replace(/\s+/g, ' ').trim(),
          // The sent mail's open pixel (`/t/o/…`) is the one image the preview has no reason to show.
          images: [...doc.images]
            .filter((i) => !i.getAttribute('src')?.includes('/t/o/'))
            .map((i) => `${i.getAttribute('src')} ${i.getAttribute('alt')}`),
          links: [...doc.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')),
        };
      }, html);
    const sent = await shape(String(mail.parsed.html));
    const shown = await shape(previewHtml);
    expect(sent.images).toEqual(shown.images);
    expect(sent.text).toBe(shown.text);
    // Links of the sent mail go through click tracking (`/t/c/<token>`): the token carries the link's
    // address (base64url, after the email's id), which must be the preview's link.
    expect(sent.links).toHaveLength(shown.links.length);
    const targets = sent.links.map((l) => {
      const token = /\/t\/c\/([^.]+)/.exec(l ?? '')?.[1];
      return token ? /https?:\/\/.*/.exec(Buffer.from(token, 'base64url').toString('latin1'))?.[0] : l;
    });
    expect(targets).toEqual(shown.links);
    expect(targets).toContain('https://example.com/account');
    expect(sent.images[0]).toMatch(/ The shop logo$/);
  }, 60_000);

  it('starts a template from the gallery in the visual editor', async () => {
    await page.goto(inApp('/templates'));
    await page.getByRole('button', { name: 'Start from gallery' }).click();
    const dialog = page.getByRole('dialog', { name: 'Start from the gallery' });
    await dialog
      .getByRole('button', { name: /^Use the .* template$/ })
      .first()
      .waitFor();
    await checkScreen(page, 'ee2-gallery');
    const first = dialog.getByRole('button', { name: /^Use the .* template$/ }).first();
    const name = /^Use the (.*) template$/.exec((await first.getAttribute('aria-label')) ?? '')![1];
    await first.click();
    await page.waitForURL(`**${inApp('/templates/new')}`);
    await page.getByTestId('email-canvas').waitFor();
    expect(await page.getByRole('textbox', { name: 'Template name' }).inputValue()).toBe(name);
    expect((await order()).length).toBeGreaterThan(1);
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
