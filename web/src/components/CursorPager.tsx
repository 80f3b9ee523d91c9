import { Button, Group } from '@mantine/core';
import { IconChevronLeft, IconChevronRight } from '@tabler/icons-react';
import { useState } from 'react';

/** Where a cursor-paged list stands: the cursor of the page shown and how to move. */
export interface CursorPages {
  /** The cursor to fetch the page shown with (undefined: the first page). */
  cursor: string | undefined;
  /** 0 for the first page. */
  pageIndex: number;
  /** Back one page. */
  newer(): void;
  /** On to the page after the shown one, by the cursor its answer gave. */
  older(cursor: string): void;
}

/**
 * The pages of a newest-first list paged by the API's `cursor`: the cursors seen so far, back to the
 * first page. A new `filterKey` (the filters, serialized) starts again at the first page; the reset is
 * made while rendering rather than in an effect, so no request goes out for a stale page.
 */
export function useCursorPages(filterKey: string): CursorPages {
  const [paging, setPaging] = useState<{ key: string; cursors: Array<string | undefined> }>({
    key: filterKey,
    cursors: [undefined],
  });
  if (paging.key !== filterKey) setPaging({ key: filterKey, cursors: [undefined] });
  const cursors = paging.key === filterKey ? paging.cursors : [undefined];
  return {
    cursor: cursors[cursors.length - 1],
    pageIndex: cursors.length - 1,
    newer: () => setPaging({ key: filterKey, cursors: cursors.slice(0, -1) }),
    older: (cursor) => setPaging({ key: filterKey, cursors: [...cursors, cursor] }),
  };
}

/**
 * "Newer" and "Older" buttons of a {@link useCursorPages} list. `next` is the cursor of the page after
 * the shown one (null at the end); `waiting` (the next page's answer still placeholder data) holds
 * "Older" back.
 */
export function CursorPager({ pages, next, waiting }: { pages: CursorPages; next: string | null; waiting?: boolean }) {
  return (
    <Group gap="xs">
      <Button
        variant="default"
        size="xs"
        leftSection={<IconChevronLeft size={14} />}
        disabled={pages.pageIndex === 0}
        onClick={pages.newer}
      >
        Newer
      </Button>
      <Button
        variant="default"
        size="xs"
        rightSection={<IconChevronRight size={14} />}
        disabled={!next || waiting}
        onClick={() => next && pages.older(next)}
      >
        Older
      </Button>
    </Group>
  );
}
