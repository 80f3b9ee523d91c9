import type { BlocksDocument } from './blocks.schema.js';
import type { ContentFormat } from './format.schema.js';

/**
 * The stored shapes of content (types only, so the database schema can name them without importing
 * the compiler).
 */

/** The stored content of a row (templates and campaigns have the same four columns). */
export interface StoredContent {
  format: ContentFormat;
  /** The compiled HTML that is sent. */
  body: string;
  source: string | null;
  blocks: BlocksDocument | null;
}

/** One stored translation: its subject, sender name and content (as the parent's columns). */
export interface StoredTranslation extends StoredContent {
  subject: string;
  fromName: string | null;
}

/** A row's translations by canonical BCP 47 tag (content/translations.ts). */
export type StoredTranslations = Record<string, StoredTranslation>;
