import { describe, expect, it } from 'vitest';
import * as schema from '../../../../src/content/blocks.schema';
import { BLOCK_KINDS } from './catalog';
import { duplicateBlock, emptyDocument, idsOf, insertBlock, listOf, moveBlock, removeBlock, updateBlock } from './doc';
import { DEFAULT_STYLE, SAFE_FONTS, SOCIAL_NETWORKS, type BlocksDocument } from './types';

const kind = (key: string) => BLOCK_KINDS.find((k) => k.key === key)!;

/** A document with a heading, two columns holding a text each, and a button. */
function sample(): BlocksDocument {
  let doc = emptyDocument(DEFAULT_STYLE);
  for (const k of ['heading', 'columns2', 'button']) doc = insertBlock(doc, 'root', kind(k).make(idsOf(doc)));
  const cols = doc.blocks[1];
  doc = insertBlock(doc, `${cols.id}/col/0`, kind('text').make(idsOf(doc)));
  return insertBlock(doc, `${cols.id}/col/1`, kind('text').make(idsOf(doc)));
}

describe('blocks document operations', () => {
  it('repeats the schema’s font and network lists and defaults (types.ts keeps copies to stay light)', () => {
    expect(SAFE_FONTS).toEqual(schema.SAFE_FONTS);
    expect(SOCIAL_NETWORKS).toEqual(schema.SOCIAL_NETWORKS);
    expect(DEFAULT_STYLE).toEqual({ ...schema.blocksStyle.parse({}), logoUrl: null, logoAlt: null });
  });

  it('builds a document the server’s schema accepts, with unique ids', () => {
    const doc = sample();
    expect(schema.blocksDocument.safeParse(doc).success).toBe(true);
    expect(idsOf(doc).size).toBe(5);
  });

  it('moves within a list, duplicates with fresh ids, updates and removes at any depth', () => {
    let doc = sample();
    const [heading, cols, button] = doc.blocks;
    doc = moveBlock(doc, button.id, 1);
    expect(doc.blocks.map((b) => b.type)).toEqual(['heading', 'button', 'columns']);
    const dup = duplicateBlock(doc, cols.id);
    expect(dup.doc.blocks.map((b) => b.type)).toEqual(['heading', 'button', 'columns', 'columns']);
    expect(idsOf(dup.doc).size).toBe(8);
    const text = listOf(doc, `${cols.id}/col/1`)[0];
    doc = updateBlock(doc, text.id, { html: '<p>Right</p>' });
    expect(listOf(doc, `${cols.id}/col/1`)[0]).toMatchObject({ id: text.id, type: 'text', html: '<p>Right</p>' });
    doc = removeBlock(doc, text.id);
    expect(listOf(doc, `${cols.id}/col/1`)).toEqual([]);
    expect(removeBlock(doc, heading.id).blocks.map((b) => b.type)).toEqual(['button', 'columns']);
    expect(schema.blocksDocument.safeParse(dup.doc).success).toBe(true);
  });
});
