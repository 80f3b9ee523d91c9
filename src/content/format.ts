import { compileTemplate, TemplateError } from '../emails/render/liquid.js';
import { AppError, type FieldError } from '../http/errors.js';
import type { BlocksLabels } from './blocks-mjml.js';
import { walkBlocks, type BlocksDocument } from './blocks.schema.js';
import { compileMjml, MjmlCompileError } from './mjml.js';

/**
 * Whatever the format (format.schema.ts), what is stored as the HTML and sent is produced here, once at
 * save: delivery reads HTML only and never compiles.
 */
export { contentFormat, type ContentFormat } from './format.schema.js';
import type { ContentFormat } from './format.schema.js';

/** What a save hands in: the format, the body as written (HTML or MJML) and, for `blocks`, the document. */
export interface ContentInput {
  format: ContentFormat;
  body?: string | null;
  blocks?: BlocksDocument | null;
  /** The subject (the HTML `<title>` of compiled formats). */
  subject?: string;
  /** The mail's language (BCP 47), written as `lang` by compiled formats. */
  lang?: string | null;
  /** The renderer's own words in that language (blocks' footer links). */
  labels?: BlocksLabels;
}

/** The compiled content: `html` is sent; `source` is the MJML (written, or generated from blocks). */
export interface CompiledContent {
  format: ContentFormat;
  html: string;
  source: string | null;
  blocks: BlocksDocument | null;
}

const SUGGESTION =
  "Close every {{ }} and {% %}, end each block ({% if %}…{% endif %}), and use only Liquid's tags and filters.";

/**
 * Compiles content of any format to the HTML that is sent.
 * @throws AppError 422 VALIDATION_ERROR with `errors[0].code` `invalid_template`: Liquid that does not
 *   parse (line and column in the field as written; for blocks the field is the block's path, and
 *   `details.blockId` names it), MJML that strict validation refuses (`details.line` in the MJML), a
 *   format without what it needs (`body` for mjml, `blocks` for blocks).
 */
export async function compileContent(input: ContentInput): Promise<CompiledContent> {
  if (input.format === 'html') {
    const body = input.body ?? '';
    assertLiquid('body', body);
    return { format: 'html', html: body, source: null, blocks: null };
  }
  if (input.format === 'mjml') {
    if (!input.body?.trim()) throw missing('body', 'An MJML body is required');
    assertLiquid('body', input.body);
    return { format: 'mjml', html: await mjmlOrError(input.body, 'body'), source: input.body, blocks: null };
  }
  if (!input.blocks) throw missing('blocks', 'A blocks document is required for format "blocks"');
  assertBlocksParse(input.blocks);
  // Loaded with the first blocks document, not at start: its sanitiser (sanitize-html, PostCSS) is
  // only needed while someone saves or previews one.
  const { blocksToMjml } = await import('./blocks-mjml.js');
  const source = blocksToMjml(input.blocks, {
    lang: input.lang ?? undefined,
    title: input.subject,
    labels: input.labels,
  });
  return { format: 'blocks', html: await mjmlOrError(source, 'blocks'), source, blocks: input.blocks };
}

function missing(field: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { errors: [{ field, code: 'required', message }] });
}

async function mjmlOrError(source: string, field: string): Promise<string> {
  try {
    return await compileMjml(source);
  } catch (err) {
    if (!(err instanceof MjmlCompileError)) throw err;
    const first = err.problems[0];
    const where = first.line ? `line ${first.line}: ` : '';
    throw new AppError('VALIDATION_ERROR', `Invalid MJML: ${err.message}`, {
      errors: err.problems.map((p) => ({
        field,
        code: 'invalid_template',
        message: `MJML error${p.line ? ` at line ${p.line}` : ''}: ${p.message}`,
      })),
      details: { field, line: first.line, column: 0, reason: `${where}${first.message}` },
      suggestion:
        'Use only MJML elements where MJML allows them (mj-text inside mj-column, …); see https://documentation.mjml.io',
    });
  }
}

/**
 * The Liquid of a body as written. @throws AppError 422 `invalid_template`, `details` {field, line,
 * column, reason} so an editor can point at the spot.
 */
function assertLiquid(field: string, source: string): void {
  try {
    compileTemplate('html', source);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    const message = `Template syntax error at line ${err.line}, column ${err.column}: ${err.reason}`;
    throw new AppError('VALIDATION_ERROR', `Invalid template: ${field}: ${message}`, {
      errors: [{ field, code: 'invalid_template', message }],
      details: { field, line: err.line, column: err.column, reason: err.reason },
      suggestion: SUGGESTION,
    });
  }
}

/** Each Liquid-bearing field of a block, with the key that names it in the block. */
function liquidFields(b: Parameters<Parameters<typeof walkBlocks>[1]>[0]): Array<[string, string]> {
  switch (b.type) {
    case 'heading':
      return [['text', b.text]];
    case 'text':
    case 'footer':
    case 'html':
      return [['html', b.html]];
    case 'image':
      return [
        ['src', b.src],
        ['alt', b.alt],
        ['href', b.href ?? ''],
      ];
    case 'button':
      return [
        ['label', b.label],
        ['href', b.href],
      ];
    case 'social':
      return b.links.map((l, i) => [`links.${i}.url`, l.url]);
    case 'if':
      return [['condition', `{% if ${b.condition} %}{% endif %}`]];
    case 'for':
      return [['collection', `{% for ${b.variable} in ${b.collection} %}{% endfor %}`]];
    default:
      return [];
  }
}

/**
 * The Liquid of every block field, checked where it is written, so an error names the block (its path,
 * as zod names it, and its id) and a line and column in that field.
 * @throws AppError 422 `invalid_template`.
 */
function assertBlocksParse(doc: BlocksDocument): void {
  const errors: FieldError[] = [];
  let first: Record<string, unknown> | null = null;
  walkBlocks(doc.blocks, (b, path) => {
    for (const [key, source] of liquidFields(b)) {
      try {
        compileTemplate('html', source);
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        const field = [...path, key].join('.');
        errors.push({
          field,
          code: 'invalid_template',
          message: `Template syntax error at line ${err.line}, column ${err.column}: ${err.reason}`,
        });
        first ??= { field, blockId: b.id, line: err.line, column: err.column, reason: err.reason };
      }
    }
  });
  if (errors.length)
    throw new AppError(
      'VALIDATION_ERROR',
      `Invalid template: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      {
        errors,
        details: first ?? undefined,
        suggestion: SUGGESTION,
      },
    );
}
