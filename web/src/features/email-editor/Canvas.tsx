import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type CollisionDetection,
  type DragEndEvent,
  type KeyboardCoordinateGetter,
} from '@dnd-kit/core';
import { SortableContext, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { Group, Stack, Text } from '@mantine/core';
import { AddBlockMenu } from './AddBlockMenu';
import { BlockCard, type BlockActions } from './BlockCard';
import { allowedIn, childListsOf, listOf, ROOT, type ListKey } from './doc';
import type { AnyBlock, BlocksDocument, ContentCheck } from './types';

/** The list a sortable item belongs to (set by BlockCard's useSortable data). */
const listOfItem = (x: { data: { current?: Record<string, unknown> } } | null | undefined) =>
  x?.data.current?.list as ListKey | undefined;

// A block moves within its own list: dragging into another list (a column, a branch) would change
// what the block may hold, so the collision and the keyboard only consider the active block's list.
// Blocks differ in height (a columns block holds others), so the target is the block under the
// dragged block's leading edge (its top going up, its bottom going down), where the keyboard sensor
// puts that edge; the nearest centre decides only when no block is under it.
const sameListCollision: CollisionDetection = (args) => {
  const list = listOfItem(args.active);
  const containers = args.droppableContainers.filter((c) => listOfItem(c) === list);
  const start = args.active.rect.current.initial;
  const r = args.collisionRect;
  if (start) {
    const edge = r.top < start.top ? r.top + 1 : r.bottom - 1;
    const hit = containers.find((c) => {
      const rect = args.droppableRects.get(c.id);
      return rect && edge >= rect.top && edge <= rect.bottom;
    });
    if (hit) return [{ id: hit.id, data: { droppableContainer: hit, value: 0 } }];
  }
  return closestCenter({ ...args, droppableContainers: containers });
};

/**
 * Arrow up/down while a block is picked up with the keyboard: moves it by one block of its own list,
 * so that its leading edge lands in the neighbouring block (which the collision above then picks).
 */
const sameListKeyboard: KeyboardCoordinateGetter = (event, { context, currentCoordinates }) => {
  if (event.code !== 'ArrowUp' && event.code !== 'ArrowDown') return undefined;
  event.preventDefault();
  const r = context.collisionRect;
  if (!context.active || !r) return undefined;
  const list = listOfItem(context.active);
  const rects = context.droppableContainers
    .getEnabled()
    .filter((c) => c.id !== context.active?.id && listOfItem(c) === list)
    .map((c) => context.droppableRects.get(c.id))
    .filter((x) => x !== undefined);
  if (event.code === 'ArrowUp') {
    const above = rects.filter((x) => x.top < r.top - 1).sort((a, b) => b.top - a.top)[0];
    return above ? { x: currentCoordinates.x, y: currentCoordinates.y + above.top - r.top } : undefined;
  }
  const below = rects.filter((x) => x.bottom > r.bottom + 1).sort((a, b) => a.bottom - b.bottom)[0];
  return below ? { x: currentCoordinates.x, y: currentCoordinates.y + below.bottom - r.bottom } : undefined;
};

const LIST_NAMES = (key: ListKey, owner: AnyBlock | undefined): string => {
  const slot = key.split('/').slice(1).join('/');
  if (owner?.type === 'if') return slot === 'else' ? 'Otherwise' : 'Then';
  if (owner?.type === 'for') return 'For each item';
  return `Column ${Number(slot.split('/')[1]) + 1}`;
};

interface CanvasProps {
  doc: BlocksDocument;
  selectedId: string | null;
  checks: ContentCheck[];
  actions: BlockActions;
  add: (list: ListKey, kindKey: string) => void;
}

/**
 * The document's blocks as cards, in order, with the nested lists of columns, conditions and loops; a
 * block is dragged by its handle (mouse, touch, or keyboard: Space, arrows, Space).
 */
export function Canvas({ doc, selectedId, checks, actions, add }: CanvasProps) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sameListKeyboard }),
  );
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const list = listOfItem(active);
    if (list === undefined || list !== listOfItem(over)) return;
    const to = listOf(doc, list).findIndex((b) => b.id === over.id);
    if (to >= 0) actions.move(String(active.id), to);
  };
  const problemsOf = (id: string) => ({
    error: checks.filter((c) => c.blockId === id && c.severity === 'error').length,
    warning: checks.filter((c) => c.blockId === id && c.severity === 'warning').length,
  });

  const renderList = (key: ListKey, owner?: AnyBlock) => {
    const blocks = listOf(doc, key);
    return (
      <Stack key={key} gap={6} data-list={key}>
        {owner && (
          <Group justify="space-between" gap="xs">
            <Text size="xs" fw={600} c="dimmed">
              {LIST_NAMES(key, owner)}
            </Text>
          </Group>
        )}
        <SortableContext id={key} items={blocks.map((b) => b.id)} strategy={verticalListSortingStrategy}>
          {blocks.map((b, i) => (
            <BlockCard
              key={b.id}
              block={b}
              list={key}
              index={i}
              count={blocks.length}
              selected={b.id === selectedId}
              problems={problemsOf(b.id)}
              actions={actions}
            >
              {childListsOf(b).length ? childListsOf(b).map((k) => renderList(k, b)) : undefined}
            </BlockCard>
          ))}
        </SortableContext>
        {blocks.length === 0 && !owner && (
          <Text size="sm" c="dimmed" ta="center" py="lg">
            No block yet: add a heading, a text or an image to start.
          </Text>
        )}
        <AddBlockMenu kind={allowedIn(key, doc)} onAdd={(k) => add(key, k)} compact={Boolean(owner)} />
      </Stack>
    );
  };

  return (
    <DndContext sensors={sensors} collisionDetection={sameListCollision} onDragEnd={onDragEnd}>
      <div data-testid="email-canvas">{renderList(ROOT)}</div>
    </DndContext>
  );
}
