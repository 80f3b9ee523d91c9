import { z } from 'zod';

/**
 * The visual editor's document (`format: "blocks"`), version 1: a global style and a list of blocks,
 * which the server turns into MJML (blocks-mjml.ts) and then HTML with the code path of `format: "mjml"`
 * (mjml.ts), so the preview, the test and the sent mail are one HTML. Text fields may hold Liquid
 * (`{{ contact.name ?? 'there' }}`); `text`/`footer` hold a small rich-text HTML subset (p, br, strong,
 * b, em, i, u, s, a, ul, ol, li, span) that the renderer sanitises again at render.
 *
 * Changing a block's meaning needs a new `version`; adding an optional field does not.
 */

/** Fonts every mail client has, or falls back from cleanly (no web-font download needed). */
export const SAFE_FONTS = [
  'Arial, Helvetica, sans-serif',
  'Helvetica, Arial, sans-serif',
  'Verdana, Geneva, sans-serif',
  'Tahoma, Geneva, sans-serif',
  "'Trebuchet MS', Helvetica, sans-serif",
  'Georgia, Times, serif',
  "'Times New Roman', Times, serif",
  "'Courier New', Courier, monospace",
] as const;

/** A CSS colour as `#rgb` or `#rrggbb` (what every mail client understands). */
const color = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{3}){1,2}$/, 'a colour is #rgb or #rrggbb')
  .meta({ description: 'A colour, #rgb or #rrggbb' });

/** Link targets: http(s), mailto, tel, or a Liquid expression that renders one (`{{ manageUrl }}`). */
const href = z
  .string()
  .trim()
  .max(2000)
  .refine(
    (s) => /^(https?:\/\/|mailto:|tel:|\{\{)/i.test(s),
    'a link starts with https://, http://, mailto:, tel: or {{',
  )
  .meta({ description: 'https://…, http://…, mailto:…, tel:… or a Liquid expression such as {{ manageUrl }}' });

const align = z.enum(['left', 'center', 'right']);
/** Padding in pixels, `[top, right, bottom, left]`, each 0–120. */
// An array of four, not a tuple: the dashboard's generated client maps tuples to plain arrays.
const padding = z
  .array(z.int().min(0).max(120))
  .length(4)
  .meta({ description: 'Padding in pixels: [top, right, bottom, left], each 0–120' });
/** A block's id: unique in its document, chosen by the editor (used to point a check at a block). */
const blockId = z.string().min(1).max(64);
const RICH_MAX = 50_000;

/** The document's global style; a new document starts from the project's (`GET /email-style`). */
export const blocksStyle = z
  .object({
    brandColor: color.default('#4f46e5'),
    backgroundColor: color.default('#f4f4f5'),
    contentBackground: color.default('#ffffff'),
    textColor: color.default('#1f2937'),
    linkColor: color.default('#4f46e5'),
    fontFamily: z.enum(SAFE_FONTS).default('Arial, Helvetica, sans-serif'),
    /** Body text size in pixels. */
    fontSize: z.int().min(12).max(22).default(16),
    /** Content width in pixels (MJML's `mj-body` width). */
    width: z.int().min(480).max(800).default(600),
    logoUrl: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .nullish(),
    logoAlt: z.string().max(200).nullish(),
  })
  .meta({ id: 'BlocksStyle' });
export type BlocksStyle = z.output<typeof blocksStyle>;

const heading = z.object({
  id: blockId,
  type: z.literal('heading'),
  text: z.string().max(500),
  level: z.union([z.literal(1), z.literal(2), z.literal(3)]).default(1),
  align: align.default('left'),
  color: color.nullish(),
  padding: padding.nullish(),
});

const text = z.object({
  id: blockId,
  type: z.literal('text'),
  /** Rich text: the HTML subset named in this file's docstring. */
  html: z.string().max(RICH_MAX),
  align: align.default('left'),
  color: color.nullish(),
  fontSize: z.int().min(10).max(40).nullish(),
  padding: padding.nullish(),
});

const image = z.object({
  id: blockId,
  type: z.literal('image'),
  src: z.url({ protocol: /^https?$/ }).max(2000),
  /**
   * What a reader with images off or a screen reader gets (WCAG 1.1.1). Required to save: an empty one
   * is the check list's `missing_alt` error (checks.ts), so a draft can still be previewed.
   */
  alt: z.string().trim().max(500).default(''),
  href: href.nullish(),
  /** Display width in pixels; null: the content width. */
  width: z.int().min(16).max(800).nullish(),
  align: align.default('center'),
  padding: padding.nullish(),
});

const button = z.object({
  id: blockId,
  type: z.literal('button'),
  label: z.string().min(1).max(200),
  href,
  align: align.default('center'),
  /** Button colour; null: the brand colour. */
  color: color.nullish(),
  textColor: color.default('#ffffff'),
  borderRadius: z.int().min(0).max(40).default(6),
  padding: padding.nullish(),
});

const divider = z.object({
  id: blockId,
  type: z.literal('divider'),
  color: color.default('#e5e7eb'),
  thickness: z.int().min(1).max(10).default(1),
  padding: padding.nullish(),
});

const spacer = z.object({
  id: blockId,
  type: z.literal('spacer'),
  height: z.int().min(4).max(200).default(24),
});

export const SOCIAL_NETWORKS = [
  'facebook',
  'x',
  'instagram',
  'linkedin',
  'youtube',
  'github',
  'tiktok',
  'mastodon',
  'website',
] as const;

const social = z.object({
  id: blockId,
  type: z.literal('social'),
  align: align.default('center'),
  links: z
    .array(z.object({ network: z.enum(SOCIAL_NETWORKS), url: href }))
    .min(1)
    .max(12),
});

const footer = z.object({
  id: blockId,
  type: z.literal('footer'),
  /** Rich text above the links: the sender's postal address, why the reader gets this mail. */
  html: z.string().max(RICH_MAX).default(''),
  /** The one-click unsubscribe link (`{{ unsubscribeUrl }}`, RFC 8058's page). */
  unsubscribe: z.boolean().default(true),
  /** The preference centre link (`{{ manageUrl }}`). */
  preferences: z.boolean().default(true),
  align: align.default('center'),
});

const rawHtml = z.object({
  id: blockId,
  type: z.literal('html'),
  /** Sent as written (MJML's mj-raw); Liquid works inside. */
  html: z.string().max(RICH_MAX),
});

/** A Liquid expression of a condition (`contact.plan == "pro"`) or a collection (`products`): no tag delimiters. */
const liquidExpression = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .refine((s) => !/[{}%]/.test(s) && !/[\r\n]/.test(s), 'write the expression alone, without {{ }} or {% %}');

/** The blocks a column, condition or loop may hold: everything but columns (no nested layout). */
export type LeafBlock = z.output<typeof leaf>;

/** The block kinds of each level, listed once: a column holds leaves, a condition or loop a row's blocks. */
const LEAVES = [heading, text, image, button, divider, spacer, social, footer, rawHtml] as const;
const leaf = z.discriminatedUnion('type', [...LEAVES]);

const columns = z.object({
  id: blockId,
  type: z.literal('columns'),
  /** 2 or 3 columns, left to right; each stacks under the previous on a phone. */
  columns: z
    .array(z.object({ blocks: z.array(leaf).max(50) }))
    .min(2)
    .max(3),
  /** Column widths in percent, summing to 100; null: equal widths. */
  widths: z.array(z.int().min(10).max(90)).min(2).max(3).nullish(),
  backgroundColor: color.nullish(),
  padding: padding.nullish(),
});

type Columns = z.output<typeof columns>;
const rowBlock = z.discriminatedUnion('type', [...LEAVES, columns]);

const condition = z.object({
  id: blockId,
  type: z.literal('if'),
  /** Liquid condition, as in `{% if … %}`. */
  condition: liquidExpression,
  blocks: z.array(rowBlock).max(100),
  /** Shown when the condition is false. */
  elseBlocks: z.array(rowBlock).max(100).default([]),
});

const loop = z.object({
  id: blockId,
  type: z.literal('for'),
  /** The loop variable, as in `{% for item in items %}`. */
  variable: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a variable name is letters, digits and _'),
  /** Liquid expression of the collection. */
  collection: liquidExpression,
  blocks: z.array(rowBlock).max(100),
});

/** Any block of the document's top level. */
export type Block = z.output<typeof rowBlock> | z.output<typeof condition> | z.output<typeof loop>;
export type { Columns };

const topBlock = z.discriminatedUnion('type', [...LEAVES, columns, condition, loop]);

/** The whole document. Limits: 200 top-level blocks, block ids unique. */
export const blocksDocument = z
  .object({
    version: z.literal(1),
    style: blocksStyle.prefault({}),
    /** Preheader: the preview line mail clients show after the subject (hidden in the body). */
    preheader: z.string().max(300).nullish(),
    blocks: z.array(topBlock).max(200),
  })
  .superRefine((doc, ctx) => {
    const seen = new Set<string>();
    walkBlocks(doc.blocks, (b, path) => {
      if (seen.has(b.id)) ctx.addIssue({ code: 'custom', message: `block id ${b.id} is used twice`, path });
      seen.add(b.id);
    });
  })
  .meta({ id: 'BlocksDocument', description: "The visual editor's document (format blocks), version 1" });
export type BlocksDocument = z.output<typeof blocksDocument>;
/** What a client may send: defaults not yet applied. */
export type BlocksDocumentInput = z.input<typeof blocksDocument>;

/**
 * Calls `visit` for every block of a document, depth first, in reading order, with its path from the
 * document's root (`['blocks', 2, 'columns', 0, 'blocks', 1]`), as zod issue paths name it.
 */
export function walkBlocks(
  blocks: ReadonlyArray<Block | LeafBlock>,
  visit: (b: Block | LeafBlock, path: Array<string | number>) => void,
  path: Array<string | number> = ['blocks'],
): void {
  blocks.forEach((b, i) => {
    const here = [...path, i];
    visit(b, here);
    if (b.type === 'columns')
      b.columns.forEach((c, j) => walkBlocks(c.blocks, visit, [...here, 'columns', j, 'blocks']));
    if (b.type === 'if') {
      walkBlocks(b.blocks, visit, [...here, 'blocks']);
      walkBlocks(b.elseBlocks, visit, [...here, 'elseBlocks']);
    }
    if (b.type === 'for') walkBlocks(b.blocks, visit, [...here, 'blocks']);
  });
}
