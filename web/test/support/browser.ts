import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { REPO_ROOT } from './build.js';

/** Debian's Chromium (`apt-get install chromium`); CHROMIUM_PATH overrides. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the tests write a screenshot of every screen, for a person to look at. */
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'web', 'test', 'screenshots');

// The machine has no route to the internet: without the background-networking flags Chromium keeps
// trying (and failing) to reach its update and sync services.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Starts headless Chromium through playwright-core (which downloads no browser).
 * @throws Error naming the install command when Chromium is missing.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The browser tests need Chromium at ${CHROMIUM}: install it with "apt-get install -y chromium" (Debian) or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** A page's problems that no assertion would otherwise see: uncaught errors and CSP refusals. */
export interface PageProblems {
  errors: string[];
}

/**
 * A fresh browser context (own cookies, clipboard allowed so copy buttons can be checked) on `baseURL`,
 * with a page that records uncaught errors and Content-Security-Policy violations.
 */
export async function newPage(
  browser: Browser,
  baseURL: string,
): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({
    baseURL,
    viewport: { width: 1280, height: 860 },
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  const page = await context.newPage();
  const problems: PageProblems = { errors: [] };
  page.on('pageerror', (e) => problems.errors.push(`uncaught: ${e.message}`));
  // A crashed tab makes every later step of the file time out: say so where the failure is read.
  page.on('crash', () => {
    problems.errors.push('the page crashed');
    process.stderr.write(`Chromium's page crashed at ${page.url()}\n`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text()))
      problems.errors.push(`csp: ${m.text()}`);
  });
  return { context, page, problems };
}

/**
 * Presses a copy button and returns what it put on the clipboard (the clipboard is emptied first and
 * read until the button's asynchronous write landed).
 */
export async function copyWith(page: Page, button: Locator): Promise<string> {
  // The clipboard refuses writes from a page without focus (e.g. after a screenshot resized it).
  await page.bringToFront();
  await page.evaluate(() => navigator.clipboard.writeText(''));
  await button.click();
  for (let i = 0; i < 50; i++) {
    const text = await page.evaluate(() => navigator.clipboard.readText());
    if (text) return text;
    await page.waitForTimeout(50);
  }
  throw new Error('the copy button put nothing on the clipboard');
}

let announced = false;

/** Waits (up to 5 s) until no finite CSS transition or animation is running: colours measured at rest. */
async function settled(page: Page): Promise<void> {
  await page
    .waitForFunction(
      () =>
        document
          .getAnimations()
          .every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity),
      undefined,
      { timeout: 5000, polling: 50 },
    )
    .catch(() => undefined);
}

/** What {@link axeViolations} reads of axe's results. */
type Violations = Awaited<ReturnType<AxeBuilder['analyze']>>['violations'];

/**
 * axe's violations on the page as it is now, all of axe's default rules. A frame sandboxed without
 * scripts (an email preview) cannot run axe (waiting for it never ends) and holds the user's email,
 * not the dashboard, so it is left out; the dashboard has no other frame.
 * The first check of a document goes through AxeBuilder in legacy mode (axe.run() in the page itself;
 * the default mode also opens a blank page per check to merge per-frame results, which only
 * cross-origin frames need). AxeBuilder injects axe's 500 KB source on every call, which cost more
 * than the check itself; the dashboard is one document that routes without reloading, so later
 * checks call the axe already in the page with the same context and rules.
 */
async function axeViolations(page: Page): Promise<Violations> {
  const injected = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === 'object');
  if (!injected) return (await new AxeBuilder({ page }).setLegacyMode().exclude(SANDBOXED).analyze()).violations;
  return page.evaluate(async (exclude) => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: unknown }> } })
      .axe;
    return (await axe.run({ exclude: [[exclude]] }, { resultTypes: ['violations'], iframes: false })).violations;
  }, SANDBOXED) as Promise<Violations>;
}
const SANDBOXED = 'iframe[sandbox=""]';

/**
 * Checks the page with axe-core (every rule axe runs by default: WCAG 2.x A/AA and best practices) and
 * fails on any violation of serious or critical impact, listing the rule and the elements; then saves
 * a screenshot of the whole page as `<name>.png` in {@link SCREENSHOT_DIR}.
 */
export async function checkScreen(page: Page, name: string): Promise<void> {
  // Let transitions (modals, toasts coming in or fading out) finish so colours are measured at rest:
  // a toast half faded has a contrast no reader sees for long, and on a busy machine a fixed pause
  // is not enough, so wait until every toast and modal is fully opaque (or gone), up to 5 s. The first
  // 150 ms only lets a transition begin (Mantine starts its enter transitions within a frame or two).
  await page.waitForTimeout(150);
  await page
    .waitForFunction(
      () =>
        [...document.querySelectorAll('.mantine-Notifications-root [style*="opacity"], .mantine-Modal-content')].every(
          (el) => getComputedStyle(el).opacity === '1',
        ),
      undefined,
      { timeout: 5000, polling: 50 },
    )
    .catch(() => undefined);
  await settled(page);
  const analyze = async () =>
    (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  let bad = await analyze();
  // A toast can start fading out (auto-close) while axe measures it: a violation that is real is still
  // there once that transition is over, so look once more before failing.
  if (bad.length) {
    await page.waitForTimeout(500);
    await settled(page);
    bad = await analyze();
  }
  const report = bad.map(
    (v) =>
      `${v.impact} ${v.id}: ${v.help}\n${v.nodes
        .slice(0, 5)
        .map((n) => `    ${n.target.join(' ')}: ${n.failureSummary?.split('\n').join(' ')}`)
        .join('\n')}`,
  );
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  if (!announced) {
    announced = true;
    process.stdout.write(`\nDashboard screenshots: ${SCREENSHOT_DIR}\n`);
  }
  // Grow the window to the page's height instead of a stitched full-page capture, in which the fixed
  // header and sidebar would show only over the first screenful.
  const size = page.viewportSize() ?? { width: 1280, height: 860 };
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  if (height > size.height) await page.setViewportSize({ width: size.width, height: Math.min(height, 6000) });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
  if (height > size.height) await page.setViewportSize(size);
  expect(report, `accessibility of ${name}`).toEqual([]);
}

/**
 * Checks and photographs the screen on a desktop (1440×900, `<name>-1440.png`), then on a phone
 * (390×844, `<name>-390.png`), and puts the desktop size back. `ready` (if given) is awaited after each
 * resize, for content that lays itself out again (a mail's frame, a chart).
 */
export async function checkBothSizes(page: Page, name: string, ready?: () => Promise<void>): Promise<void> {
  await page.setViewportSize({ width: 1440, height: 900 });
  await ready?.();
  await checkScreen(page, `${name}-1440`);
  await page.setViewportSize({ width: 390, height: 844 });
  await ready?.();
  await checkScreen(page, `${name}-390`);
  await page.setViewportSize({ width: 1440, height: 900 });
}
