import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, SCREENSHOT_DIR } from '../../web/test/support/browser.js';
import { blocksDocument, walkBlocks, type BlocksDocument } from '../content/blocks.schema.js';
import { contentChecks } from '../content/checks.js';
import { compileContent } from '../content/format.js';
import { closeMjml } from '../content/mjml.js';
import { compileTemplate, renderTemplate } from '../emails/render/liquid.js';
import { GALLERY_SOURCES, galleryTemplates, type GalleryEntry } from './gallery/index.js';
import { GALLERY_SAMPLE_DATA } from './gallery/samples.js';

/** WCAG 2.x relative luminance of `#rgb`/`#rrggbb`. */
function luminance(hex: string): number {
  const h = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join('') : hex.slice(1);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const v = parseInt(h.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2.x contrast ratio of two colours, 1 to 21. */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * Every foreground/background pair of colours a document sets: text and headings on the content
 * background or their row's, links, and button labels on their button. (The footer's colours are the
 * renderer's; axe measures those on the rendered mail.)
 */
function colourPairs(doc: BlocksDocument): Array<{ what: string; fg: string; bg: string }> {
  const { style } = doc;
  const pairs: Array<{ what: string; fg: string; bg: string }> = [];
  const rowBackground = new Map<string, string>();
  walkBlocks(doc.blocks, (b) => {
    if (b.type === 'columns' && b.backgroundColor)
      for (const c of b.columns) for (const inner of c.blocks) rowBackground.set(inner.id, b.backgroundColor);
  });
  walkBlocks(doc.blocks, (b) => {
    const bg = rowBackground.get(b.id) ?? style.contentBackground;
    if (b.type === 'heading' || b.type === 'text') pairs.push({ what: b.id, fg: b.color ?? style.textColor, bg });
    if ((b.type === 'text' || b.type === 'footer') && /<a\s/i.test(b.html))
      pairs.push({ what: `${b.id} link`, fg: style.linkColor, bg });
    if (b.type === 'button') pairs.push({ what: b.id, fg: b.textColor, bg: b.color ?? style.brandColor });
  });
  return pairs;
}

/** The data names a document reads, by their first segment (`items`, `offerCode`), loop variables and `contact.*` left out. */
function variablesOf(doc: BlocksDocument, subject: string): Set<string> {
  const loopNames = new Set<string>();
  const names = new Set<string>();
  const read = (s: string) => {
    for (const m of s.matchAll(/\{\{\s*([A-Za-z_]\w*)/g)) names.add(m[1]);
  };
  read(subject);
  read(doc.preheader ?? '');
  walkBlocks(doc.blocks, (b) => {
    if (b.type === 'for') {
      loopNames.add(b.variable);
      names.add(b.collection.split('.')[0]);
    }
    if (b.type === 'if') names.add(/^[A-Za-z_]\w*/.exec(b.condition)![0]);
    read(JSON.stringify(b));
  });
  for (const n of [...loopNames, 'contact', 'unsubscribeUrl', 'manageUrl']) names.delete(n);
  return names;
}

describe('the starter gallery', () => {
  it('has the eight starters of issue 38, with unique keys and block ids', () => {
    expect(GALLERY_SOURCES.map((t) => t.key)).toEqual([
      'welcome',
      'password-reset',
      'receipt',
      'newsletter',
      'product-announcement',
      'event-invitation',
      're-engagement',
      'digest',
    ]);
    // Unique ids within a document are the schema's rule; across the gallery they help find a block.
    const ids = GALLERY_SOURCES.flatMap((t) => {
      const out: string[] = [];
      walkBlocks(blocksDocument.parse(t.blocks).blocks, (b) => out.push(b.id));
      return out;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(GALLERY_SOURCES.map((t) => [t.key, t] as const))('%s parses as a blocks document', (_key, t) => {
    const parsed = blocksDocument.safeParse(t.blocks);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.data!.preheader).toBe(t.preheader);
  });

  it.each(galleryTemplates().map((t) => [t.key, t] as const))(
    '%s keeps the house rules: footer last in marketing mail, https links only, alt text, Liquid with fallbacks',
    (_key, t) => {
      const { blocks } = t.blocks;
      if (t.type === 'MARKETING') {
        const last = blocks.at(-1)!;
        expect(last.type).toBe('footer');
        expect(last).toMatchObject({ unsubscribe: true, preferences: true });
      }
      const json = JSON.stringify(t);
      expect(json).not.toMatch(/http:\/\//);
      expect(json).not.toMatch(/lorem|ipsum/i);
      walkBlocks(blocks, (b) => {
        if (b.type === 'image') expect(b.alt.trim(), b.id).not.toBe('');
      });
      // The reader's name always has a fallback: a contact without one reads "Hi there", not "Hi ,".
      expect(json).not.toMatch(/\{\{\s*contact\.firstName\s*\}\}/);
    },
  );

  it('uses the for block over items in the receipt and the digest, and an if block somewhere', () => {
    const kinds = (key: string) => {
      const out: string[] = [];
      walkBlocks(galleryTemplates().find((t) => t.key === key)!.blocks.blocks, (b) =>
        out.push(b.type === 'for' ? `for ${b.variable} in ${b.collection}` : b.type),
      );
      return out;
    };
    expect(kinds('receipt')).toContain('for item in items');
    expect(kinds('digest')).toContain('for item in items');
    expect(galleryTemplates().filter((t) => kinds(t.key).includes('if')).length).toBeGreaterThan(0);
  });

  it.each(galleryTemplates().map((t) => [t.key, t] as const))(
    '%s sets only colour pairs of at least 4.5:1 (WCAG 1.4.3)',
    (_key, t) => {
      const low = colourPairs(t.blocks)
        .map((p) => ({ ...p, ratio: Math.round(contrast(p.fg, p.bg) * 100) / 100 }))
        .filter((p) => p.ratio < 4.5);
      expect(low).toEqual([]);
    },
  );

  it('lists every variable of every template in docs/email-gallery.md', () => {
    const doc = readFileSync(new URL('../../docs/email-gallery.md', import.meta.url), 'utf8');
    const missing: string[] = [];
    for (const t of galleryTemplates()) {
      const row = doc.split('\n').find((l) => l.includes(`| \`${t.key}\` |`));
      if (!row) missing.push(`${t.key}: no row`);
      for (const v of variablesOf(t.blocks, t.subject)) if (!row?.includes(`\`${v}\``)) missing.push(`${t.key}: ${v}`);
    }
    expect(missing).toEqual([]);
  });
});

/**
 * axe rules about a web page's structure that a mail does not have: landmarks (a mail client shows the
 * mail inside its own page, with its own `main`), so every region rule would flag the whole mail.
 */
const PAGE_ONLY_RULES = ['landmark-one-main', 'region'];

/** The widths the issue asks for: a phone (375 px) and the mail's own desktop width (600 px). */
const WIDTHS = [
  ['phone', 375],
  ['desktop', 600],
] as const;

/** The variables a mail of `t` gets: its sample data, a contact with a first name, the reserved URLs. */
function variablesFor(t: GalleryEntry): Record<string, unknown> {
  const data = GALLERY_SAMPLE_DATA[t.key] ?? {};
  return {
    ...data,
    email: 'ada@example.com',
    contact: { firstName: 'Ada', id: '0190aaaa-0000-7000-8000-000000000001', email: 'ada@example.com' },
    unsubscribeUrl: 'https://example.com/unsubscribe/sample',
    subscribeUrl: 'https://example.com/subscribe/sample',
    manageUrl: 'https://example.com/manage/sample',
  };
}

describe('the starter gallery, rendered', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await browser.newContext({ locale: 'en-US' })).newPage();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await closeMjml();
  });

  it.each(galleryTemplates().map((t) => [t.key, t] as const))(
    '%s compiles without MJML errors, passes the pre-save checks, and axe at 375 and 600 px',
    async (key, t) => {
      // The server's own path (format.ts): blocks → MJML → HTML with MJML's strict validation.
      const { html } = await compileContent({ format: 'blocks', blocks: t.blocks, subject: t.subject, lang: 'en' });
      expect(await contentChecks({ subject: t.subject, type: t.type, html, blocks: t.blocks })).toEqual([]);
      expect(html).toMatch(/<html[^>]* lang="en"/);

      const mail = await renderTemplate(compileTemplate('html', html), variablesFor(t));
      expect(mail).not.toMatch(/\{\{|\{%/);
      for (const [size, width] of WIDTHS) {
        await page.setViewportSize({ width, height: 800 });
        await page.setContent(mail, { waitUntil: 'load' });
        // Responsive: nothing wider than the screen, no sideways scrolling.
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${key} at ${width} px`).toBe(width);
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, `gallery-${key}-${size}.png`), fullPage: true });
        const { violations } = await new AxeBuilder({ page }).disableRules(PAGE_ONLY_RULES).analyze();
        const report = violations.map(
          (v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`,
        );
        expect(report, `axe on ${key} at ${width} px`).toEqual([]);
      }
    },
    60_000,
  );

  it.each(galleryTemplates().map((t) => [t.key, t] as const))(
    '%s still reads well with no data at all: every link leads somewhere, nothing of Liquid shows',
    async (_key, t) => {
      const { html } = await compileContent({ format: 'blocks', blocks: t.blocks, subject: t.subject, lang: 'en' });
      const mail = await renderTemplate(compileTemplate('html', html), {
        ...variablesFor(t),
        ...Object.fromEntries(Object.keys(GALLERY_SAMPLE_DATA[t.key] ?? {}).map((k) => [k, undefined])),
        contact: { email: 'ada@example.com' },
      });
      expect(mail).not.toMatch(/\{\{|\{%|undefined/);
      expect(mail).not.toMatch(/Hi ,/);
      const hrefs = [...mail.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
      expect(hrefs.filter((h) => !h.startsWith('https://'))).toEqual([]);
    },
  );
});
