/**
 * What the template editor and the campaign composer share about a message's format, kept light (no
 * editor libraries): they are on the first screen, the block editor is not.
 */
import { DEFAULT_STYLE, type AnyBlock, type BlocksDocument, type BlocksStyle, type ContentCheck } from './types';

/** How a message is written: the visual editor's blocks, MJML, or HTML. */
export type Format = 'blocks' | 'mjml' | 'html';

export const FORMAT_LABELS: Record<Format, string> = { blocks: 'Visual editor', mjml: 'MJML', html: 'HTML' };

/** The body a new MJML message starts with: a responsive section with a variable and its fallback. */
export const STARTER_MJML = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text font-size="20px">Hello {{firstName ?? "there"}}</mj-text>
        <mj-text>Write your message here. Variables like {{firstName}} come from the contact's data.</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>
`;

/** A new document in the project's style (the schema's defaults until the project has one). */
export const newDocument = (style: BlocksStyle | undefined): BlocksDocument => ({
  version: 1,
  style: { ...DEFAULT_STYLE, ...style },
  preheader: null,
  blocks: [],
});

function visit(blocks: readonly AnyBlock[], fn: (b: AnyBlock) => void) {
  for (const b of blocks) {
    fn(b);
    if (b.type === 'columns') b.columns.forEach((c) => visit(c.blocks, fn));
    if (b.type === 'if') [b.blocks, b.elseBlocks].forEach((l) => visit(l, fn));
    if (b.type === 'for') visit(b.blocks, fn);
  }
}

/**
 * The checks the dashboard makes itself, before the server can: an image the schema would refuse
 * (no address yet, no alt text) cannot be sent to the preview, so the server's check list cannot
 * name it. Same shape as the server's checks.
 */
export function localChecks(doc: BlocksDocument | null): ContentCheck[] {
  if (!doc) return [];
  const out: ContentCheck[] = [];
  visit(doc.blocks, (b) => {
    if (b.type !== 'image') return;
    if (!b.src)
      out.push({
        code: 'image_src',
        severity: 'error',
        message: 'An image has no picture yet: upload one.',
        blockId: b.id,
      });
    if (!b.alt.trim())
      out.push({
        code: 'missing_alt',
        severity: 'error',
        message: 'An image has no alt text: describe what it shows.',
        blockId: b.id,
      });
  });
  if (doc.style.logoUrl && !doc.style.logoAlt?.trim())
    out.push({ code: 'missing_alt', severity: 'error', message: 'The logo has no alt text.', blockId: null });
  return out;
}

const strip = <T extends AnyBlock>(blocks: T[]): T[] =>
  blocks
    .filter((b) => b.type !== 'image' || (b.src && b.alt.trim()))
    .map((b) => {
      if (b.type === 'columns') return { ...b, columns: b.columns.map((c) => ({ blocks: strip(c.blocks) })) };
      if (b.type === 'if') return { ...b, blocks: strip(b.blocks), elseBlocks: strip(b.elseBlocks) };
      if (b.type === 'for') return { ...b, blocks: strip(b.blocks) };
      return b;
    });

/** The document as the preview can render it: images without a picture or alt text left out (see localChecks). */
export function renderable(doc: BlocksDocument): BlocksDocument {
  const logoOk = !doc.style.logoUrl || Boolean(doc.style.logoAlt?.trim());
  return { ...doc, style: logoOk ? doc.style : { ...doc.style, logoUrl: null }, blocks: strip(doc.blocks) };
}

/** The server's checks with the dashboard's, errors first (the server's missing-alt duplicates are dropped). */
export function mergeChecks(server: ContentCheck[] | undefined, local: ContentCheck[]): ContentCheck[] {
  const seen = new Set(local.map((c) => `${c.code}:${c.blockId}`));
  const all = [...local, ...(server ?? []).filter((c) => !seen.has(`${c.code}:${c.blockId}`))];
  return [
    ...all.filter((c) => c.severity === 'error'),
    ...all.filter((c) => c.severity === 'warning'),
    ...all.filter((c) => c.severity === 'info'),
  ];
}
