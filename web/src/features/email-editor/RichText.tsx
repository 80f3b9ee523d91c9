import { Input, Paper } from '@mantine/core';
import Link from '@tiptap/extension-link';
import { EditorContent, useEditor } from '@tiptap/react';
import Bold from '@tiptap/extension-bold';
import Document from '@tiptap/extension-document';
import HardBreak from '@tiptap/extension-hard-break';
import Italic from '@tiptap/extension-italic';
// Subpath imports: the package indexes would bring task lists, placeholders and the rest along.
import { BulletList } from '@tiptap/extension-list/bullet-list';
import { ListItem } from '@tiptap/extension-list/item';
import { ListKeymap } from '@tiptap/extension-list/keymap';
import { OrderedList } from '@tiptap/extension-list/ordered-list';
import Paragraph from '@tiptap/extension-paragraph';
import Strike from '@tiptap/extension-strike';
import Text from '@tiptap/extension-text';
import Underline from '@tiptap/extension-underline';
import { UndoRedo } from '@tiptap/extensions/undo-redo';
import { useEffect, useId, useRef } from 'react';
import classes from './RichText.module.css';
import { RichTextToolbar } from './RichTextToolbar';

interface RichTextProps {
  label: string;
  value: string;
  onChange: (html: string) => void;
}

/**
 * The rich text of a text or footer block (TipTap, with a toolbar of Mantine buttons: Mantine's own
 * TipTap package doubled the chunk's toolbar code): bold, italic, underline,
 * strike, links and lists, nothing more, so what it writes stays inside the HTML subset the schema
 * names (p, br, strong, em, u, s, a, ul, ol, li). Ctrl+Z inside it undoes typing; the document's
 * undo buttons undo whole edits.
 */
export function RichText({ label, value, onChange }: RichTextProps) {
  const labelId = useId();
  const changed = useRef(onChange);
  useEffect(() => {
    changed.current = onChange;
  });
  const editor = useEditor({
    extensions: [
      // The marks and nodes of the schema's subset, one by one: StarterKit would bring headings, code
      // blocks, quotes and rules into the chunk only to switch them off.
      Document,
      Paragraph,
      Text,
      Bold,
      Italic,
      Underline,
      Strike,
      HardBreak,
      BulletList,
      OrderedList,
      ListItem,
      ListKeymap,
      UndoRedo,
      Link.configure({ openOnClick: false, protocols: ['mailto', 'tel'] }),
    ],
    content: value,
    // Made after the first commit: an editor made in a render that React throws away (Suspense) is
    // destroyed by TipTap, and a call on it fails (its schema is gone).
    immediatelyRender: false,
    shouldRerenderOnTransaction: true,
    editorProps: {
      attributes: { 'aria-labelledby': labelId, role: 'textbox', 'aria-multiline': 'true', 'data-testid': 'rich-text' },
    },
    onUpdate: ({ editor: e }) => {
      if (!e.isDestroyed) changed.current(e.isEmpty ? '' : e.getHTML());
    },
  });
  // An undo of the document, or another block selected, brings a value the editor does not hold.
  useEffect(() => {
    if (editor && value !== (editor.isEmpty ? '' : editor.getHTML()))
      editor.commands.setContent(value, { emitUpdate: false });
  }, [editor, value]);

  return (
    <Input.Wrapper label={label} id={labelId} labelProps={{ id: labelId }}>
      <Paper withBorder radius="sm">
        {editor && <RichTextToolbar editor={editor} />}
        <EditorContent editor={editor} className={classes.content} />
      </Paper>
    </Input.Wrapper>
  );
}
