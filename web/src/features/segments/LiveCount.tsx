import { Group, Loader, Text } from '@mantine/core';
import { ApiError } from '../../api/errors';
import type { UseQueryResult } from '@tanstack/react-query';

/**
 * The live count under a condition: the number once the server answered, a spinner while it works,
 * and "fix the highlighted filters" when it refused the condition (the builder shows where).
 */
export function LiveCount({
  query,
  noun,
}: {
  query: UseQueryResult<{ count: number }>;
  /** What is counted, for one and for any other number: `['matching contact', 'matching contacts']`. */
  noun: readonly [one: string, other: string];
}) {
  const refused = query.error instanceof ApiError && query.error.fieldErrors.length > 0;
  return (
    <Group
      gap="xs"
      aria-live="polite"
      data-testid="live-count"
      data-count={query.data && !query.isError ? query.data.count : undefined}
    >
      {query.isFetching && <Loader size="xs" aria-label="Counting" />}
      {query.isError ? (
        <Text size="sm" c="red">
          {refused ? 'The condition has errors: fix the highlighted filters.' : query.error.message}
        </Text>
      ) : query.data ? (
        <Text size="sm">
          <Text span fw={700}>
            {query.data.count.toLocaleString()}
          </Text>{' '}
          {query.data.count === 1 ? noun[0] : noun[1]}
        </Text>
      ) : (
        <Text size="sm" c="dimmed">
          Counting…
        </Text>
      )}
    </Group>
  );
}
