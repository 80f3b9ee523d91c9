/**
 * The visual editor's document types. They are the server's own (src/content/blocks.schema.ts, type-only
 * imports: nothing of the schema's zod code reaches the bundle), so the editor cannot drift from what
 * the server validates. The two constant lists are repeated here for the same reason: importing them
 * would bring the schema module's zod objects into the editor's chunk. A test compares them.
 */
import type {
  Block,
  BlocksDocument,
  BlocksDocumentInput,
  BlocksStyle,
  LeafBlock,
} from '../../../../src/content/blocks.schema';

export type { Block, BlocksDocument, BlocksDocumentInput, BlocksStyle, LeafBlock };

/** Any block at any depth. */
export type AnyBlock = Block | LeafBlock;
export type BlockType = AnyBlock['type'];
/** A block of one type. */
export type BlockOf<T extends BlockType> = Extract<AnyBlock, { type: T }>;

/** Fonts every mail client has (the schema's SAFE_FONTS, in its order). */
export const SAFE_FONTS = [
  'Arial, Helvetica, sans-serif',
  'Helvetica, Arial, sans-serif',
  'Verdana, Geneva, sans-serif',
  'Tahoma, Geneva, sans-serif',
  "'Trebuchet MS', Helvetica, sans-serif",
  'Georgia, Times, serif',
  "'Times New Roman', Times, serif",
  "'Courier New', Courier, monospace",
] as const satisfies ReadonlyArray<BlocksStyle['fontFamily']>;

/** The social networks a social block links (the schema's SOCIAL_NETWORKS). */
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
] as const satisfies ReadonlyArray<Extract<AnyBlock, { type: 'social' }>['links'][number]['network']>;

/** The style a document gets when the project has none saved: the schema's defaults. */
export const DEFAULT_STYLE: BlocksStyle = {
  brandColor: '#4f46e5',
  backgroundColor: '#f4f4f5',
  contentBackground: '#ffffff',
  textColor: '#1f2937',
  linkColor: '#4f46e5',
  fontFamily: 'Arial, Helvetica, sans-serif',
  fontSize: 16,
  width: 600,
  logoUrl: null,
  logoAlt: null,
};

/** A check of the pre-save list (`checks` of the preview answer). */
export interface ContentCheck {
  code: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  /** The block it is about, null for the whole mail (the subject, the missing unsubscribe link). */
  blockId: string | null;
}
