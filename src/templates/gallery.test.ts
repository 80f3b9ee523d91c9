import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { blocksDocument, walkBlocks, type BlocksDocument } from '../content/blocks.schema.js';
import { GALLERY_SOURCES, galleryTemplates } from './gallery/index.js';

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
