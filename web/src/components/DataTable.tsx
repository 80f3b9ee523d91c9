import { Paper, Table, VisuallyHidden } from '@mantine/core';
import type { ReactNode } from 'react';

/** One column of a {@link DataTable}. */
export interface Column<T> {
  /** Stable key of the column. */
  key: string;
  header: ReactNode;
  render: (row: T) => ReactNode;
  /** CSS width, e.g. `120` or `'30%'`. */
  width?: number | string;
  align?: 'left' | 'right' | 'center';
}

interface DataTableProps<T> {
  /** Names the table for screen readers (rendered as a hidden caption). */
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  /** Narrowest width before the table scrolls sideways. */
  minWidth?: number;
  /** Test hook on each row: `data-row` gets this value. */
  rowLabel?: (row: T) => string;
}

/**
 * The dashboard's table: Mantine's `Table` in a bordered card with a caption, column headers and
 * horizontal scrolling inside the card on narrow screens (the region is focusable, so keys scroll it). Show an {@link EmptyState} instead when `rows` is empty.
 */
export function DataTable<T>({ caption, columns, rows, rowKey, minWidth = 600, rowLabel }: DataTableProps<T>) {
  return (
    <Paper p={0} style={{ overflow: 'hidden' }}>
      {/* A native scroller the keyboard can reach (a tab stop named by the caption): on a phone the
          table scrolls sideways inside its card, never the page. */}
      <Table.ScrollContainer minWidth={minWidth} type="native" tabIndex={0} role="region" aria-label={caption}>
        <Table verticalSpacing="sm" horizontalSpacing="md">
          <VisuallyHidden component="caption">{caption}</VisuallyHidden>
          <Table.Thead bg="var(--mantine-color-default-hover)">
            <Table.Tr>
              {columns.map((c) => (
                <Table.Th key={c.key} w={c.width} ta={c.align} scope="col">
                  {c.header}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              // Plain elements, not Table.Tr/Td: a page has hundreds of cells (see .pigeon-tr in global.css).
              <tr key={rowKey(row)} className="pigeon-tr" data-row={rowLabel?.(row)}>
                {columns.map((c) => (
                  <td key={c.key} className="pigeon-td" data-align={c.align}>
                    {c.render(row)}
                  </td>
                ))}
              </tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}
