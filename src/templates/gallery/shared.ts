import type { BlocksDocumentInput } from '../../content/blocks.schema.js';

/**
 * One starter template of the gallery (issue 38): a `blocks` document with the template fields a
 * new template or campaign starts from. `blocks` is written as the client would send it (zod
 * defaults not yet applied); the gallery's index parses it with `blocksDocument`.
 */
export interface GalleryTemplate {
  /** Stable identifier, lower-case words joined by `-` (`password-reset`): the route's `:key`. */
  key: string;
  name: string;
  /** One sentence for the gallery card: what the mail is for. */
  description: string;
  /** MARKETING starters end with a footer block (unsubscribe and preferences links). */
  type: 'TRANSACTIONAL' | 'MARKETING';
  subject: string;
  /** The preview line after the subject; the same text as `blocks.preheader`. */
  preheader: string;
  blocks: BlocksDocumentInput;
}

/**
 * Secondary text (notes, fine print): gray-600, 7.56:1 on white and 6.88:1 on the default page
 * background #f4f4f5, above WCAG 1.4.3's 4.5:1 for body text.
 */
export const MUTED = '#4b5563';

/**
 * The sender's postal address line of every footer: marketing mail must carry one (CAN-SPAM,
 * 15 U.S.C. 7704(a)(5)); a placeholder the user replaces with their own.
 */
export const ADDRESS = 'Acme Inc. · 100 Example Street · Springfield, IL 62701 · USA';
