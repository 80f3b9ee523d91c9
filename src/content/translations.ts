import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { bodyField, subjectField } from '../emails/api/content.schema.js';
import { AppError } from '../http/errors.js';
import { derivedUuid } from '../lib/ids.js';
import { blocksDocument, type BlocksDocument } from './blocks.schema.js';
import type { ContentFormat } from './format.schema.js';
import { normalizeLocale, pickLocale } from './locale.js';
import { contentOut, contentToCreate, contentToUpdate } from './save.js';
import type { StoredTranslation, StoredTranslations } from './stored.js';

/**
 * Per-language variants of a template or campaign (issue 38): `translations: {<BCP 47 tag>: {subject,
 * body | blocks, fromName?}}`, each in the parent's format and compiled at save like its body. A mail
 * goes out in the translation that suits the contact's `data.locale` (locale.ts `pickLocale`: the tag,
 * then its language family, `pt-BR` → `pt`), else in the default content.
 */

/** At most this many languages per template or campaign. */
export const MAX_TRANSLATIONS = 20;

const translationIn = z.object({
  subject: subjectField('Subject must not contain line breaks'),
  body: bodyField.optional().meta({ description: 'In the parent format: HTML or MJML (ignored for blocks)' }),
  blocks: blocksDocument.nullish().meta({ description: 'The visual editor document (format blocks)' }),
  fromName: z.string().max(200).nullish(),
});

/** The request field: keys are BCP 47 tags (stored canonical, `pt-br` → `pt-BR`). */
export const translationsIn = z.record(z.string().max(64), translationIn).nullish().meta({
  description:
    'Per-language variants, keyed by BCP 47 tag: the contact whose data.locale matches (or shares the language) gets that subject, body and sender name',
});
export type TranslationsInput = z.output<typeof translationsIn>;

export const translationsOut = z
  .record(
    z.string(),
    z.object({
      subject: z.string(),
      body: z.string(),
      blocks: blocksDocument.nullable(),
      fromName: z.string().nullable(),
      html: z.string(),
    }),
  )
  .meta({ description: 'Per-language variants by BCP 47 tag; {} when there are none' });

export type { StoredTranslation, StoredTranslations };

/**
 * The translations a save stores, each compiled in `format`.
 * @throws AppError 422: a key that is not a BCP 47 tag or named twice (`pt-br` and `pt-BR`), more than
 *   {@link MAX_TRANSLATIONS}, or a translation's content refused as a body would be (field
 *   `translations.<tag>.<field>`).
 */
export async function translationsToStore(
  input: NonNullable<TranslationsInput>,
  format: ContentFormat,
  type: string,
): Promise<StoredTranslations> {
  const entries = Object.entries(input);
  if (entries.length > MAX_TRANSLATIONS)
    throw invalidTranslation('translations', `At most ${MAX_TRANSLATIONS} languages`, 'too_big');
  const out: StoredTranslations = {};
  for (const [key, t] of entries) {
    const tag = normalizeLocale(key);
    if (!tag)
      throw invalidTranslation(`translations.${key}`, `"${key}" is not a language tag (BCP 47, such as de or pt-BR)`);
    if (out[tag]) throw invalidTranslation(`translations.${key}`, `${tag} is given twice`, 'duplicate');
    const content = await prefixed(tag, () =>
      contentToCreate({ format, body: t.body, blocks: t.blocks ?? undefined }, t.subject, type, tag),
    );
    out[tag] = { ...content, subject: t.subject, fromName: t.fromName ?? null };
  }
  return out;
}

/**
 * The stored translations converted to a new format the way the body is (content/save.ts
 * `contentToUpdate`): blocks → mjml keeps the generated MJML, mjml → html the compiled HTML.
 * @throws AppError 422 when a translation cannot be converted (html → mjml or blocks).
 */
export async function translationsConverted(
  stored: StoredTranslations,
  format: ContentFormat,
  type: string,
): Promise<StoredTranslations> {
  const out: StoredTranslations = {};
  for (const [tag, t] of Object.entries(stored)) {
    const content = await prefixed(tag, () => contentToUpdate({ ...t, type }, { format, type }, tag));
    out[tag] = { ...t, ...content };
  }
  return out;
}

/** The API's view of stored translations. */
export function translationsOutOf(stored: StoredTranslations | null): z.output<typeof translationsOut> {
  const out: z.output<typeof translationsOut> = {};
  for (const [tag, t] of Object.entries(stored ?? {})) {
    const c = contentOut(t);
    out[tag] = { subject: t.subject, body: c.body, blocks: c.blocks, fromName: t.fromName, html: c.html };
  }
  return out;
}

/** The translation of `translations` for a contact whose data is `data`, with its tag; null: the default. */
export function translationFor(
  translations: StoredTranslations | null | undefined,
  locale: unknown,
): { tag: string; t: StoredTranslation } | null {
  if (!translations) return null;
  const tag = pickLocale(Object.keys(translations), normalizeLocale(locale));
  return tag ? { tag, t: translations[tag] } : null;
}

/**
 * SQL of {@link translationFor}'s choice over `locale` (a text expression, the contact's raw
 * `data->>'locale'`), for statements that queue many contacts' mail at once: the key of `tags` that
 * `pickLocale` would pick, or null. Tags compare case-insensitively with `_` read as `-`: the canonical
 * forms differ from the raw ones in case only.
 */
export function pickLocaleSql(locale: SQL, tags: readonly string[]): SQL {
  const l = sql`lower(replace(btrim(${locale}), '_', '-'))`;
  const bySpecificity = [...tags].sort((a, b) => b.length - a.length);
  const when: SQL[] = bySpecificity.map(
    (t) => sql`when ${l} = ${t.toLowerCase()} or ${l} like ${`${t.toLowerCase()}-%`} then ${t}`,
  );
  for (const t of tags) when.push(sql`when split_part(${l}, '-', 1) = ${t.toLowerCase().split('-')[0]} then ${t}`);
  return sql`(case ${sql.join(when, sql` `)} else null end)`;
}

/** The `email_contents` id of a campaign translation's body (derived, so never stored; an RFC 9562 v8 UUID). */
export function translationContentId(campaignId: string, tag: string): string {
  return derivedUuid(`${campaignId}:translation:${tag}`);
}

function invalidTranslation(field: string, message: string, code = 'invalid_locale'): AppError {
  return new AppError('VALIDATION_ERROR', message, { errors: [{ field, code, message }] });
}

/** Runs `fn`, naming a 422's fields as the translation's (`translations.de.body`). */
async function prefixed<T>(tag: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof AppError) || !err.errors) throw err;
    throw new AppError('VALIDATION_ERROR', `Translation ${tag}: ${err.message}`, {
      errors: err.errors.map((e) => ({ ...e, field: `translations.${tag}.${e.field}` })),
      details: err.details,
      suggestion: err.suggestion,
    });
  }
}

export type { BlocksDocument };
