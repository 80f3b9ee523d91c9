import { AppError } from '../http/errors.js';
import type { BlocksDocument } from './blocks.schema.js';
import { contentChecks } from './checks.js';
import { compileContent, type CompiledContent, type ContentFormat } from './format.js';

/**
 * Content of a template or campaign on its way to the database: the one rule for what a save of any
 * format stores (`body` = the HTML that is sent, `source`, `blocks`, `format`), shared by both.
 */

/** The stored content of a row (templates and campaigns have the same four columns). */
export interface StoredContent {
  format: ContentFormat;
  /** The compiled HTML that is sent. */
  body: string;
  source: string | null;
  blocks: BlocksDocument | null;
}

/** The content fields of a create or update request. */
export interface ContentFields {
  format?: ContentFormat;
  body?: string;
  blocks?: BlocksDocument | null;
}

/**
 * The content a create stores.
 * @throws AppError 422 as {@link compileContent}, and for a blocks document with a blocking check
 *   (an image without alt text), field `blocks`.
 */
export async function contentToCreate(fields: ContentFields, subject: string, type: string): Promise<StoredContent> {
  return stored(
    await compileChecked({ format: fields.format ?? 'html', body: fields.body, blocks: fields.blocks, subject }, type),
  );
}

/**
 * The content an update stores, or null when the update leaves it alone. A format change without new
 * content converts what is there: blocks → mjml keeps the generated MJML, mjml or blocks → html keeps the
 * compiled HTML (both "eject" to the lower format, losing nothing that is sent); html → mjml or blocks
 * needs the new body or document.
 * @throws AppError 422 as {@link contentToCreate}; `required` when the target format's content is missing.
 */
export async function contentToUpdate(
  row: StoredContent & { subject: string; type: string },
  patch: ContentFields & { subject?: string; type?: string },
): Promise<StoredContent | null> {
  const compiled = row.format !== 'html';
  if (patch.format === undefined && patch.body === undefined && patch.blocks === undefined) {
    // The subject is a compiled document's <title>, and the type changes the check list's verdict.
    if (!compiled || (patch.subject === undefined && patch.type === undefined)) return null;
  }
  const format = patch.format ?? row.format;
  const subject = patch.subject ?? row.subject;
  const type = patch.type ?? row.type;
  if (format === 'html') return stored(await compileChecked({ format, body: patch.body ?? row.body, subject }, type));
  if (format === 'mjml')
    return stored(
      await compileChecked(
        { format, body: patch.body ?? (row.format === 'html' ? undefined : row.source), subject },
        type,
      ),
    );
  return stored(await compileChecked({ format, blocks: patch.blocks ?? row.blocks, subject }, type));
}

async function compileChecked(input: Parameters<typeof compileContent>[0], type: string): Promise<CompiledContent> {
  const out = await compileContent(input);
  if (out.blocks) {
    const errors = (
      await contentChecks({ subject: input.subject ?? '', type, html: out.html, blocks: out.blocks })
    ).filter((c) => c.severity === 'error');
    if (errors.length)
      throw new AppError('VALIDATION_ERROR', errors.map((e) => e.message).join(' '), {
        errors: errors.map((e) => ({ field: 'blocks', code: e.code, message: e.message })),
        details: { blockIds: errors.map((e) => e.blockId) },
        suggestion: 'Give every image a short description of what it shows (alt text).',
      });
  }
  return out;
}

function stored(c: CompiledContent): StoredContent {
  return { format: c.format, body: c.html, source: c.source, blocks: c.blocks };
}

/** The API's view of stored content: `body` as the user writes it in the format, `html` as it is sent. */
export function contentOut(row: StoredContent): {
  format: ContentFormat;
  body: string;
  blocks: BlocksDocument | null;
  html: string;
} {
  return {
    format: row.format,
    body: row.format === 'html' ? row.body : (row.source ?? row.body),
    blocks: row.blocks,
    html: row.body,
  };
}

/**
 * The content a full replace (`PUT /campaigns/:id`) stores. Without `format` the stored format is kept,
 * so a client that knows nothing of formats (Plunk's) and sends back the `body` it read keeps the
 * campaign as it was: MJML stays MJML; a blocks campaign keeps its document while `body` is the MJML
 * it was given, and becomes `mjml` when that MJML was edited.
 * @throws AppError 422 as {@link contentToCreate}.
 */
export async function contentToReplace(
  row: StoredContent,
  fields: ContentFields,
  subject: string,
  type: string,
): Promise<StoredContent> {
  if (fields.format !== undefined || row.format === 'html') return contentToCreate(fields, subject, type);
  if (row.format === 'mjml') return contentToCreate({ ...fields, format: 'mjml' }, subject, type);
  if (fields.blocks) return contentToCreate({ format: 'blocks', blocks: fields.blocks }, subject, type);
  if (fields.body === undefined || fields.body === row.source)
    return contentToCreate({ format: 'blocks', blocks: row.blocks }, subject, type);
  return contentToCreate({ format: 'mjml', body: fields.body }, subject, type);
}
