import { ActionIcon, Group, Paper, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { IconArrowDown, IconArrowUp, IconCopy, IconGripVertical, IconTrash } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { BlockIcon, nameOf, summaryOf } from './catalog';
import type { ListKey } from './doc';
import type { AnyBlock } from './types';

export interface BlockActions {
  select: (id: string) => void;
  move: (id: string, to: number) => void;
  duplicate: (id: string) => void;
  remove: (id: string) => void;
}

interface BlockCardProps {
  block: AnyBlock;
  list: ListKey;
  index: number;
  count: number;
  selected: boolean;
  /** How many checks of the pre-save list point at this block, by severity. */
  problems: { error: number; warning: number };
  actions: BlockActions;
  /** The lists the block holds (columns, branches, a loop's body). */
  children?: ReactNode;
}

/**
 * One block in the canvas: a drag handle (dnd-kit: drag with the mouse, or focus it and press Space,
 * the arrow keys, Space again), the block's name and a one-line summary (a button: selects the block
 * for the properties panel), and move up/down, duplicate and delete buttons.
 */
export function BlockCard({ block, list, index, count, selected, problems, actions, children }: BlockCardProps) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: block.id,
    data: { list },
  });
  const name = nameOf(block.type);
  const summary = summaryOf(block);
  const border = problems.error
    ? 'var(--mantine-color-red-6)'
    : selected
      ? 'var(--mantine-primary-color-filled)'
      : problems.warning
        ? 'var(--mantine-color-yellow-6)'
        : undefined;
  return (
    <Paper
      ref={setNodeRef}
      withBorder
      p={6}
      data-block-id={block.id}
      data-block-type={block.type}
      data-selected={selected || undefined}
      style={{
        transform: CSS.Translate.toString(transform),
        transition,
        opacity: isDragging ? 0.6 : 1,
        zIndex: isDragging ? 2 : undefined,
        position: 'relative',
        borderColor: border,
        borderWidth: border ? 2 : undefined,
      }}
    >
      <Group gap={4} wrap="nowrap" align="center">
        <ActionIcon
          ref={setActivatorNodeRef}
          variant="subtle"
          color="gray"
          style={{ cursor: 'grab', touchAction: 'none' }}
          {...attributes}
          {...listeners}
          aria-label={`Drag ${name} ${index + 1} of ${count}`}
        >
          <IconGripVertical size={16} />
        </ActionIcon>
        <UnstyledButton
          onClick={() => actions.select(block.id)}
          aria-pressed={selected}
          aria-label={`${name}: ${summary}`}
          style={{ flex: 1, minWidth: 0 }}
          data-testid="block-select"
        >
          <Group gap={8} wrap="nowrap">
            <BlockIcon block={block} />
            <Text size="sm" fw={600} style={{ whiteSpace: 'nowrap' }}>
              {name}
            </Text>
            <Text size="sm" c="dimmed" truncate="end" style={{ minWidth: 0 }}>
              {summary}
            </Text>
          </Group>
        </UnstyledButton>
        <Group gap={0} wrap="nowrap">
          <Tooltip label="Move up">
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={`Move ${name} up`}
              disabled={index === 0}
              onClick={() => actions.move(block.id, index - 1)}
            >
              <IconArrowUp size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Move down">
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={`Move ${name} down`}
              disabled={index === count - 1}
              onClick={() => actions.move(block.id, index + 1)}
            >
              <IconArrowDown size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Duplicate">
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={`Duplicate ${name}`}
              onClick={() => actions.duplicate(block.id)}
            >
              <IconCopy size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Delete">
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Delete ${name}`}
              onClick={() => actions.remove(block.id)}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>
      {children && (
        <Stack gap={6} mt={6} pl={28}>
          {children}
        </Stack>
      )}
    </Paper>
  );
}
