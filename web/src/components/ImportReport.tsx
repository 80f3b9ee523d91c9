import { Paper, ScrollArea, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** One refused row of a CSV import: its number (row 1 is the header) and why, in words. */
export interface ImportRowError {
  row?: number | null;
  message: string;
}

interface ImportReportProps {
  /** The counts, as `[label, count]`, shown as tiles. */
  stats: Array<[string, number]>;
  /** The refused rows the server listed (at most its first ones). */
  errors: ImportRowError[];
  /** How many rows were refused in all (more than `errors` when the list was cut). */
  failed: number;
  /** The heading of the refused rows, e.g. "Rows not imported". */
  errorsTitle: string;
  /** What importing the fixed file again does, said under the list. */
  retryNote: ReactNode;
  testId: string;
}

/**
 * The end of a CSV import (contacts, suppressions): the counts, then the rows refused with their row
 * number and reason, and what to do about them.
 */
export function ImportReport({ stats, errors, failed, errorsTitle, retryNote, testId }: ImportReportProps) {
  return (
    <Stack gap="sm" data-testid={testId}>
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        {stats.map(([label, n]) => (
          <Paper key={label} p="sm" withBorder data-stat={label}>
            <Text size="xs" c="dimmed">
              {label}
            </Text>
            <Text fw={700} size="lg">
              {n.toLocaleString()}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
      {errors.length > 0 && (
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            {errorsTitle}
            {failed > errors.length ? ` (the first ${errors.length} of ${failed})` : ''}
          </Text>
          <ScrollArea.Autosize mah={240} type="auto">
            <Table fz="sm" withTableBorder data-testid="import-errors">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col" w={80}>
                    Row
                  </Table.Th>
                  <Table.Th scope="col">Problem</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {errors.map((e, i) => (
                  <Table.Tr key={i} data-error-row={e.row}>
                    <Table.Td>{e.row ?? '—'}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-word' }}>{e.message}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea.Autosize>
          <Text size="xs" c="dimmed">
            Row 1 is the header, as in a spreadsheet. {retryNote}
          </Text>
        </Stack>
      )}
    </Stack>
  );
}
