/**
 * Pure operations on a blocks document: each returns a new document (the history keeps the old ones).
 * A block lives in a list, named by a {@link ListKey}: the document's top level (`root`), a column
 * (`<columnsId>/col/<n>`), a condition's branches (`<ifId>/blocks`, `<ifId>/else`) or a loop's body
 * (`<forId>/blocks`).
 */
import type { AnyBlock, Block, BlocksDocument, BlocksStyle, BlockType, LeafBlock } from './types';

export type ListKey = string;
/** A block a condition or a loop may hold. */
type RowBlock = Extract<Block, { type: 'if' }>['blocks'][number];
export const ROOT: ListKey = 'root';

/** The lists a container block holds, in reading order. */
export function childListsOf(b: AnyBlock): ListKey[] {
  if (b.type === 'columns') return b.columns.map((_, i) => `${b.id}/col/${i}`);
  if (b.type === 'if') return [`${b.id}/blocks`, `${b.id}/else`];
  if (b.type === 'for') return [`${b.id}/blocks`];
  return [];
}

/** The blocks of a list; empty when the list's container is gone. */
export function listOf(doc: BlocksDocument, key: ListKey): AnyBlock[] {
  if (key === ROOT) return doc.blocks;
  const [id, slot, n] = key.split('/');
  const owner = findBlock(doc, id);
  if (!owner) return [];
  if (owner.type === 'columns' && slot === 'col') return owner.columns[Number(n)]?.blocks ?? [];
  if (owner.type === 'if') return slot === 'else' ? owner.elseBlocks : owner.blocks;
  if (owner.type === 'for') return owner.blocks;
  return [];
}

/** Which block types a list may hold: a column only leaves, a condition or loop no nested logic. */
export function allowedIn(key: ListKey, doc: BlocksDocument): 'any' | 'row' | 'leaf' {
  if (key === ROOT) return 'any';
  const owner = findBlock(doc, key.split('/')[0]);
  return owner?.type === 'columns' ? 'leaf' : 'row';
}

/** Replaces the blocks of one list. */
function setList(doc: BlocksDocument, key: ListKey, blocks: AnyBlock[]): BlocksDocument {
  if (key === ROOT) return { ...doc, blocks: blocks as Block[] };
  const [id, slot, n] = key.split('/');
  return mapBlock(doc, id, (owner) => {
    if (owner.type === 'columns' && slot === 'col')
      return {
        ...owner,
        columns: owner.columns.map((c, i) => (i === Number(n) ? { blocks: blocks as LeafBlock[] } : c)),
      };
    // Which types a list may hold is checked where blocks are added (`fits`), not by these types.
    const rows = blocks as RowBlock[];
    if (owner.type === 'if') return slot === 'else' ? { ...owner, elseBlocks: rows } : { ...owner, blocks: rows };
    if (owner.type === 'for') return { ...owner, blocks: rows };
    return owner;
  });
}

/** Calls `fn` on every block, depth first (the schema's walkBlocks order). */
export function eachBlock(blocks: readonly AnyBlock[], fn: (b: AnyBlock, list: ListKey) => void, list = ROOT): void {
  for (const b of blocks) {
    fn(b, list);
    if (b.type === 'columns') b.columns.forEach((c, i) => eachBlock(c.blocks, fn, `${b.id}/col/${i}`));
    if (b.type === 'if') {
      eachBlock(b.blocks, fn, `${b.id}/blocks`);
      eachBlock(b.elseBlocks, fn, `${b.id}/else`);
    }
    if (b.type === 'for') eachBlock(b.blocks, fn, `${b.id}/blocks`);
  }
}

/** The block with this id, anywhere in the document. */
export function findBlock(doc: BlocksDocument, id: string): AnyBlock | undefined {
  let found: AnyBlock | undefined;
  eachBlock(doc.blocks, (b) => {
    if (b.id === id) found = b;
  });
  return found;
}

/** The list holding a block, or undefined. */
export function listHolding(doc: BlocksDocument, id: string): ListKey | undefined {
  let found: ListKey | undefined;
  eachBlock(doc.blocks, (b, list) => {
    if (b.id === id) found = list;
  });
  return found;
}

/** A copy of `blocks` with `fn` applied to the block `id` (at any depth). */
function mapIn<T extends AnyBlock>(blocks: T[], id: string, fn: (b: AnyBlock) => AnyBlock): T[] {
  return blocks.map((b) => {
    if (b.id === id) return fn(b) as T;
    if (b.type === 'columns')
      return { ...b, columns: b.columns.map((c) => ({ blocks: mapIn(c.blocks, id, fn) })) } as T;
    if (b.type === 'if') return { ...b, blocks: mapIn(b.blocks, id, fn), elseBlocks: mapIn(b.elseBlocks, id, fn) } as T;
    if (b.type === 'for') return { ...b, blocks: mapIn(b.blocks, id, fn) } as T;
    return b;
  });
}

const mapBlock = (doc: BlocksDocument, id: string, fn: (b: AnyBlock) => AnyBlock): BlocksDocument => ({
  ...doc,
  blocks: mapIn(doc.blocks, id, fn),
});

/** Changes some fields of one block (its type and id stay). */
export function updateBlock(doc: BlocksDocument, id: string, patch: Partial<AnyBlock>): BlocksDocument {
  return mapBlock(doc, id, (b) => ({ ...b, ...patch, id: b.id, type: b.type }) as AnyBlock);
}

/** Changes the global style. */
export const updateStyle = (doc: BlocksDocument, patch: Partial<BlocksStyle>): BlocksDocument => ({
  ...doc,
  style: { ...doc.style, ...patch },
});

/** Puts `block` into list `key` at `index` (the end when omitted). */
export function insertBlock(doc: BlocksDocument, key: ListKey, block: AnyBlock, index?: number): BlocksDocument {
  const list = [...listOf(doc, key)];
  list.splice(index ?? list.length, 0, block);
  return setList(doc, key, list);
}

/** Takes a block (and what it holds) out of the document. */
export function removeBlock(doc: BlocksDocument, id: string): BlocksDocument {
  const key = listHolding(doc, id);
  if (!key) return doc;
  return setList(
    doc,
    key,
    listOf(doc, key).filter((b) => b.id !== id),
  );
}

/** Moves a block within its list to `to` (an index of the list as it is now). */
export function moveBlock(doc: BlocksDocument, id: string, to: number): BlocksDocument {
  const key = listHolding(doc, id);
  if (!key) return doc;
  const list = [...listOf(doc, key)];
  const from = list.findIndex((b) => b.id === id);
  if (to < 0 || to >= list.length || from === to) return doc;
  const [b] = list.splice(from, 1);
  list.splice(to, 0, b);
  return setList(doc, key, list);
}

/** Every id of the document, for making new ones that do not collide. */
export function idsOf(doc: BlocksDocument): Set<string> {
  const ids = new Set<string>();
  eachBlock(doc.blocks, (b) => ids.add(b.id));
  return ids;
}

/** A short random id (8 base-36 characters) not in `taken`; adds it to `taken`. */
export function newId(taken: Set<string>): string {
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    const id = Array.from(bytes, (x) => (x % 36).toString(36)).join('');
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

/** A deep copy of a block with fresh ids for it and everything inside. */
export function cloneWithNewIds<T extends AnyBlock>(b: T, taken: Set<string>): T {
  const copy = structuredClone(b);
  const renew = (x: AnyBlock) => {
    x.id = newId(taken);
    if (x.type === 'columns') x.columns.forEach((c) => c.blocks.forEach(renew));
    if (x.type === 'if') [...x.blocks, ...x.elseBlocks].forEach(renew);
    if (x.type === 'for') x.blocks.forEach(renew);
  };
  renew(copy);
  return copy;
}

/** Puts a copy of the block right after it; answers the document and the copy's id. */
export function duplicateBlock(doc: BlocksDocument, id: string): { doc: BlocksDocument; id: string | null } {
  const key = listHolding(doc, id);
  const b = findBlock(doc, id);
  if (!key || !b) return { doc, id: null };
  const copy = cloneWithNewIds(b, idsOf(doc));
  const index = listOf(doc, key).findIndex((x) => x.id === id) + 1;
  return { doc: insertBlock(doc, key, copy, index), id: copy.id };
}

/** Whether a type may go into a list of the given kind. */
export function fits(type: BlockType, kind: 'any' | 'row' | 'leaf'): boolean {
  if (kind === 'any') return true;
  if (type === 'if' || type === 'for') return false;
  return kind === 'row' || type !== 'columns';
}

/** An empty document with a style (the project's, from `GET /email-style`). */
export const emptyDocument = (style: BlocksStyle): BlocksDocument => ({
  version: 1,
  style,
  preheader: null,
  blocks: [],
});
