/**
 * The kinds of blocks the "Add block" menu offers: their names, icons, what a new one holds, and the
 * one-line summary a block's card shows in the canvas.
 */
import {
  IconBrandX,
  IconClick,
  IconCode,
  IconColumns2,
  IconColumns3,
  IconGitBranch,
  IconHeading,
  IconLayoutBottombar,
  IconPhoto,
  IconRepeat,
  IconSeparator,
  IconSpacingVertical,
  IconTextSize,
  type Icon,
} from '@tabler/icons-react';
import { createElement } from 'react';
import { newId } from './doc';
import type { AnyBlock, BlockType } from './types';

/** A menu entry: `columns` comes twice (2 and 3 columns). */
export interface BlockKind {
  key: string;
  type: BlockType;
  label: string;
  icon: Icon;
  make: (taken: Set<string>) => AnyBlock;
}

export const BLOCK_KINDS: BlockKind[] = [
  {
    key: 'heading',
    type: 'heading',
    label: 'Heading',
    icon: IconHeading,
    make: (t) => ({ id: newId(t), type: 'heading', text: 'A heading', level: 1, align: 'left' }),
  },
  {
    key: 'text',
    type: 'text',
    label: 'Text',
    icon: IconTextSize,
    make: (t) => ({ id: newId(t), type: 'text', html: '<p>Write your text here.</p>', align: 'left' }),
  },
  {
    key: 'image',
    type: 'image',
    label: 'Image',
    icon: IconPhoto,
    // An image needs a source and alt text before it saves: the check list names what is missing.
    make: (t) => ({ id: newId(t), type: 'image', src: '', alt: '', align: 'center' }),
  },
  {
    key: 'button',
    type: 'button',
    label: 'Button',
    icon: IconClick,
    make: (t) => ({
      id: newId(t),
      type: 'button',
      label: 'Open',
      href: 'https://',
      align: 'center',
      textColor: '#ffffff',
      borderRadius: 6,
    }),
  },
  {
    key: 'divider',
    type: 'divider',
    label: 'Divider',
    icon: IconSeparator,
    make: (t) => ({ id: newId(t), type: 'divider', color: '#e5e7eb', thickness: 1 }),
  },
  {
    key: 'spacer',
    type: 'spacer',
    label: 'Spacer',
    icon: IconSpacingVertical,
    make: (t) => ({ id: newId(t), type: 'spacer', height: 24 }),
  },
  {
    key: 'columns2',
    type: 'columns',
    label: 'Two columns',
    icon: IconColumns2,
    make: (t) => ({ id: newId(t), type: 'columns', columns: [{ blocks: [] }, { blocks: [] }] }),
  },
  {
    key: 'columns3',
    type: 'columns',
    label: 'Three columns',
    icon: IconColumns3,
    make: (t) => ({ id: newId(t), type: 'columns', columns: [{ blocks: [] }, { blocks: [] }, { blocks: [] }] }),
  },
  {
    key: 'social',
    type: 'social',
    label: 'Social links',
    icon: IconBrandX,
    make: (t) => ({ id: newId(t), type: 'social', align: 'center', links: [{ network: 'website', url: 'https://' }] }),
  },
  {
    key: 'footer',
    type: 'footer',
    label: 'Footer',
    icon: IconLayoutBottombar,
    make: (t) => ({
      id: newId(t),
      type: 'footer',
      html: '<p>You receive this mail because you signed up at our site.</p>',
      unsubscribe: true,
      preferences: true,
      align: 'center',
    }),
  },
  {
    key: 'html',
    type: 'html',
    label: 'Raw HTML',
    icon: IconCode,
    make: (t) => ({ id: newId(t), type: 'html', html: '<p>HTML sent as written</p>' }),
  },
  {
    key: 'if',
    type: 'if',
    label: 'If (condition)',
    icon: IconGitBranch,
    make: (t) => ({ id: newId(t), type: 'if', condition: 'contact.plan == "pro"', blocks: [], elseBlocks: [] }),
  },
  {
    key: 'for',
    type: 'for',
    label: 'For each (loop)',
    icon: IconRepeat,
    make: (t) => ({ id: newId(t), type: 'for', variable: 'item', collection: 'items', blocks: [] }),
  },
];

const NAMES: Record<BlockType, string> = {
  heading: 'Heading',
  text: 'Text',
  image: 'Image',
  button: 'Button',
  divider: 'Divider',
  spacer: 'Spacer',
  columns: 'Columns',
  social: 'Social links',
  footer: 'Footer',
  html: 'Raw HTML',
  if: 'If',
  for: 'For each',
};

/** A block type's name for people ("Social links"). */
export const nameOf = (type: BlockType) => NAMES[type];

/** A block's icon, as the "Add block" menu shows it. */
export function BlockIcon({ block: b }: { block: AnyBlock }) {
  const kind = BLOCK_KINDS.find(
    (k) => k.type === b.type && (b.type !== 'columns' || k.key === `columns${b.columns.length}`),
  );
  return createElement(kind?.icon ?? IconCode, { size: 18, 'aria-hidden': true });
}

/** The text of an HTML fragment, without parsing it into the page (DOMParser makes an inert document). */
function textOf(html: string): string {
  return new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '';
}

/** What a block's card shows: its text, its link, its condition… in one line. */
export function summaryOf(b: AnyBlock): string {
  switch (b.type) {
    case 'heading':
      return b.text;
    case 'text':
    case 'footer':
    case 'html':
      return textOf(b.html).trim() || (b.type === 'footer' ? 'Unsubscribe and preferences links' : '');
    case 'image':
      return b.src ? b.alt || 'No alt text yet' : 'No image yet';
    case 'button':
      return `${b.label} → ${b.href}`;
    case 'divider':
      return `${b.thickness} px line`;
    case 'spacer':
      return `${b.height} px of space`;
    case 'columns':
      return `${b.columns.length} columns`;
    case 'social':
      return b.links.map((l) => l.network).join(', ');
    case 'if':
      return `if ${b.condition}`;
    case 'for':
      return `for ${b.variable} in ${b.collection}`;
  }
}
