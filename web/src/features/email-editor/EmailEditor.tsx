import { Button, Group, Paper, SimpleGrid, Tabs } from '@mantine/core';
import { IconArrowBackUp, IconArrowForwardUp } from '@tabler/icons-react';
import { useEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import type { BlockActions } from './BlockCard';
import { BLOCK_KINDS } from './catalog';
import { Canvas } from './Canvas';
import {
  duplicateBlock,
  findBlock,
  idsOf,
  insertBlock,
  moveBlock,
  removeBlock,
  updateBlock,
  updateStyle,
  type ListKey,
} from './doc';
import { useHistory } from './history';
import { PropertiesPanel } from './PropertiesPanel';
import { StylePanel } from './StylePanel';
import type { BlocksDocument, ContentCheck } from './types';

export interface EmailEditorProps {
  projectId: string;
  /** The document the editor starts with; later changes come from the editor (remount to load another). */
  initial: BlocksDocument;
  onChange: (doc: BlocksDocument) => void;
  /** The pre-save checks: a block with an error or a warning is marked in the canvas. */
  checks: ContentCheck[];
  /** Filled with a function that selects a block (the check list's links). */
  selectRef?: RefObject<((id: string) => void) | null>;
}

/** Whether a key press belongs to a text field (its own undo applies there). */
const inTextField = (t: EventTarget) =>
  t instanceof HTMLElement && (t.isContentEditable || t.tagName === 'INPUT' || t.tagName === 'TEXTAREA');

/**
 * The visual editor of a `blocks` document: the canvas of blocks (drag or keyboard to reorder, add,
 * duplicate, delete), the selected block's properties and the global style, with undo/redo (buttons,
 * Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y outside text fields). Loaded lazily with its libraries (dnd-kit, TipTap).
 */
export function EmailEditor({ projectId, initial, onChange, checks, selectRef }: EmailEditorProps) {
  const h = useHistory(initial);
  const { doc, set } = h;
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [tab, setTab] = useState<string | null>('block');
  const reported = useRef(initial);
  useEffect(() => {
    if (doc === reported.current) return;
    reported.current = doc;
    onChange(doc);
  }, [doc, onChange]);

  const select = (id: string) => {
    setSelectedId(id);
    setTab('block');
  };
  useEffect(() => {
    if (!selectRef) return;
    selectRef.current = (id) => {
      select(id);
      document.querySelector<HTMLElement>(`[data-block-id="${CSS.escape(id)}"] [data-testid="block-select"]`)?.focus();
    };
    return () => {
      selectRef.current = null;
    };
  });

  const actions: BlockActions = {
    select,
    move: (id, to) => set(moveBlock(doc, id, to)),
    duplicate: (id) => {
      const r = duplicateBlock(doc, id);
      set(r.doc);
      if (r.id) setSelectedId(r.id);
    },
    remove: (id) => {
      set(removeBlock(doc, id));
      if (selectedId === id || (selectedId && !findBlock(removeBlock(doc, id), selectedId))) setSelectedId(null);
    },
  };
  const add = (list: ListKey, kindKey: string) => {
    const kind = BLOCK_KINDS.find((k) => k.key === kindKey);
    if (!kind) return;
    const block = kind.make(idsOf(doc));
    set(insertBlock(doc, list, block));
    select(block.id);
  };
  const selected = selectedId ? findBlock(doc, selectedId) : undefined;

  const onKeyDown = (e: KeyboardEvent) => {
    if (!(e.ctrlKey || e.metaKey) || inTextField(e.target)) return;
    const key = e.key.toLowerCase();
    if (key === 'z' && !e.shiftKey) h.undo();
    else if ((key === 'z' && e.shiftKey) || key === 'y') h.redo();
    else return;
    e.preventDefault();
  };

  return (
    <div onKeyDown={onKeyDown} data-testid="email-editor">
      <Group gap="xs" mb="xs">
        <Button
          variant="default"
          size="compact-sm"
          leftSection={<IconArrowBackUp size={16} />}
          onClick={h.undo}
          disabled={!h.canUndo}
          aria-keyshortcuts="Control+Z"
        >
          Undo
        </Button>
        <Button
          variant="default"
          size="compact-sm"
          leftSection={<IconArrowForwardUp size={16} />}
          onClick={h.redo}
          disabled={!h.canRedo}
          aria-keyshortcuts="Control+Shift+Z"
        >
          Redo
        </Button>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        <Paper p="sm" withBorder style={{ minWidth: 0 }}>
          <Canvas doc={doc} selectedId={selectedId} checks={checks} actions={actions} add={add} />
        </Paper>
        <Paper p="sm" withBorder style={{ minWidth: 0 }}>
          <Tabs value={tab} onChange={setTab} keepMounted={false}>
            <Tabs.List mb="sm">
              <Tabs.Tab value="block">Block</Tabs.Tab>
              <Tabs.Tab value="style">Style</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="block">
              <PropertiesPanel
                block={selected}
                projectId={projectId}
                update={(patch, field) =>
                  selected && set(updateBlock(doc, selected.id, patch), field && `${selected.id}:${field}`)
                }
              />
            </Tabs.Panel>
            <Tabs.Panel value="style">
              <StylePanel
                projectId={projectId}
                doc={doc}
                setStyle={(patch, field) => set(updateStyle(doc, patch), field && `style:${field}`)}
                setPreheader={(preheader) => set({ ...doc, preheader }, 'preheader')}
              />
            </Tabs.Panel>
          </Tabs>
        </Paper>
      </SimpleGrid>
    </div>
  );
}

export default EmailEditor;
