import { blocksDocument, type BlocksDocument } from '../../content/blocks.schema.js';
import { digest } from './digest.js';
import { eventInvitation } from './event-invitation.js';
import { newsletter } from './newsletter.js';
import { passwordReset } from './password-reset.js';
import { productAnnouncement } from './product-announcement.js';
import { receipt } from './receipt.js';
import { reEngagement } from './re-engagement.js';
import type { GalleryTemplate } from './shared.js';
import { welcome } from './welcome.js';

export type { GalleryTemplate } from './shared.js';

/** The starter templates as written, in the order the gallery shows them. */
export const GALLERY_SOURCES: readonly GalleryTemplate[] = [
  welcome,
  passwordReset,
  receipt,
  newsletter,
  productAnnouncement,
  eventInvitation,
  reEngagement,
  digest,
];

/** A gallery template as served: its document parsed, every default filled in, as the editor opens it. */
export type GalleryEntry = Omit<GalleryTemplate, 'blocks'> & { blocks: BlocksDocument };

let parsed: GalleryEntry[] | null = null;

/**
 * The starter gallery (issue 38), each document parsed by `blocksDocument` on first use and kept.
 * @throws ZodError when a document does not parse (gallery.test.ts parses each one, so a broken
 * starter fails the tests before it can fail a request).
 */
export function galleryTemplates(): readonly GalleryEntry[] {
  parsed ??= GALLERY_SOURCES.map((t) => ({ ...t, blocks: blocksDocument.parse(t.blocks) }));
  return parsed;
}

/** The gallery template of `key`, or undefined for a key the gallery does not have. */
export function galleryTemplate(key: string): GalleryEntry | undefined {
  return galleryTemplates().find((t) => t.key === key);
}
