/**
 * A template's or campaign's translations (issue 38, "Per-language variants") as the editors hold
 * them: one draft per BCP 47 tag, in the parent's format. Small and free of UI: the screens import it
 * statically, the languages bar (LanguagesBar.tsx) loads lazily.
 */
import type { BlocksDocument } from './types';
import type { Format } from './content';

/** One translation being edited: its subject, sender name and body (code formats) or document (blocks). */
export interface TranslationDraft {
  subject: string;
  fromName: string;
  body: string;
  blocks: BlocksDocument | null;
}

export type TranslationDrafts = Record<string, TranslationDraft>;

/** A translation as the server answers it (templates and campaigns alike). */
interface TranslationAnswer {
  subject: string;
  body: string;
  fromName: string | null;
  blocks: unknown;
}

/** The drafts of saved translations. */
export const draftsOf = (saved: Record<string, TranslationAnswer> | undefined | null): TranslationDrafts =>
  Object.fromEntries(
    Object.entries(saved ?? {}).map(([tag, t]) => [
      tag,
      { subject: t.subject, fromName: t.fromName ?? '', body: t.body, blocks: (t.blocks as BlocksDocument) ?? null },
    ]),
  );

/**
 * The request's `translations`: each in the parent's format (a document for blocks, a body otherwise);
 * null when there are none (which also clears the saved ones).
 */
export function translationsInput(drafts: TranslationDrafts, format: Format, prepare = (d: BlocksDocument) => d) {
  const tags = Object.keys(drafts);
  if (tags.length === 0) return null;
  return Object.fromEntries(
    tags.map((tag) => {
      const t = drafts[tag];
      const content = format === 'blocks' ? { blocks: t.blocks && prepare(t.blocks) } : { body: t.body };
      return [tag, { subject: t.subject, fromName: t.fromName.trim() || null, ...content }];
    }),
  ) as Record<string, { subject: string; fromName: string | null; body?: string; blocks?: never }>;
}

let names: Intl.DisplayNames | null = null;
/** A language's name in English ("German", "Brazilian Portuguese"), the tag itself when unknown. */
export function languageName(tag: string): string {
  try {
    names ??= new Intl.DisplayNames(['en'], { type: 'language' });
    return names.of(tag) ?? tag;
  } catch {
    return tag;
  }
}
