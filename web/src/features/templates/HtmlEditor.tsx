import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, LRLanguage, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { parser } from '@lezer/html';
import { useEffect, useRef, type RefObject } from 'react';

// HTML highlighting from the bare Lezer grammar: @codemirror/lang-html would add the CSS and JavaScript
// grammars and autocompletion, doubling the editor's weight for little use in email bodies.
const htmlLanguage = LRLanguage.define({ name: 'html', parser });

interface HtmlEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** Accessible name of the editing area. */
  label: string;
  /** Id of the element describing the editor (hint or error), for screen readers. */
  describedBy?: string;
  invalid?: boolean;
  /** Filled with a function that puts text at the cursor (replacing the selection) and focuses the editor. */
  insertRef?: RefObject<((text: string) => void) | null>;
}

/**
 * A CodeMirror 6 editor for an HTML body: line numbers, HTML highlighting, undo history, Tab indents
 * (Escape then Tab leaves the editor, CodeMirror's rule). Uncontrolled inside: `value` is only pushed
 * into the editor when it differs from what the editor holds (a reset, a duplicate loaded).
 * Loaded lazily: CodeMirror weighs more than the rest of the page.
 */
export function HtmlEditor({ value, onChange, label, describedBy, invalid, insertRef }: HtmlEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  // The newest callback for the editor's listener, made once; refs are written after render.
  useEffect(() => {
    changed.current = onChange;
  });

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          drawSelection(),
          highlightActiveLine(),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle),
          htmlLanguage,
          EditorView.lineWrapping,
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) changed.current(u.state.doc.toString());
          }),
          EditorView.contentAttributes.of({
            'aria-label': label,
            'aria-multiline': 'true',
            'data-testid': 'html-editor',
          }),
          EditorView.theme({
            '&': { fontSize: '13px', height: '100%' },
            '.cm-scroller': { fontFamily: 'var(--mantine-font-family-monospace)', minHeight: '420px' },
            '&.cm-focused': { outline: 'none' },
          }),
        ],
      }),
    });
    view.current = v;
    if (insertRef) {
      insertRef.current = (text) => {
        const { from, to } = v.state.selection.main;
        v.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length } });
        v.focus();
      };
    }
    return () => {
      if (insertRef) insertRef.current = null;
      v.destroy();
    };
    // The editor is created once; later values arrive through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    const content = view.current?.contentDOM;
    if (!content) return;
    if (describedBy) content.setAttribute('aria-describedby', describedBy);
    else content.removeAttribute('aria-describedby');
    content.setAttribute('aria-invalid', invalid ? 'true' : 'false');
  }, [describedBy, invalid]);

  return (
    <div
      ref={host}
      style={{
        border: `1px solid var(--mantine-color-${invalid ? 'red-6' : 'default-border'})`,
        borderRadius: 'var(--mantine-radius-sm)',
        overflow: 'hidden',
        minHeight: 420,
        background: 'var(--mantine-color-body)',
      }}
    />
  );
}
