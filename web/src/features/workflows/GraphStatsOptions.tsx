import { Group, Loader, SegmentedControl, Stack, Text } from '@mantine/core';
import { ErrorAlert } from '../../components/ErrorAlert';
import { MACHINES_LEFT_OUT } from '../analytics/human';
import type { GraphStats } from './GraphStats';
import { STATS_DAYS, type StatsDays } from './stepFigures';

/**
 * With stats on: the range (last 7, 30 or 90 days), a spinner while it loads, what the figures count
 * (people, machine opens and clicks left out), or the error.
 */
export function GraphStatsOptions({ g }: { g: GraphStats }) {
  return (
    <Stack gap={4} mt="xs">
      <Group gap="sm">
        <SegmentedControl
          size="xs"
          aria-label="Stats period"
          value={String(g.days)}
          onChange={(v) => g.setDays(Number(v) as StatsDays)}
          data={STATS_DAYS.map((d) => ({ value: String(d), label: `Last ${d} days` }))}
        />
        {g.query.isFetching && <Loader size="xs" aria-label="Loading the stats" />}
      </Group>
      {g.query.isSuccess && (
        <Text size="xs" c="dimmed" data-testid="graph-stats-note">
          Runs that entered each step in the period; &quot;waiting now&quot; is now. Opens and clicks are by people over
          emails sent: {MACHINES_LEFT_OUT} are left out (hover a rate for the raw count).
        </Text>
      )}
      {g.query.isError && <ErrorAlert error={g.query.error} onRetry={() => void g.query.refetch()} />}
    </Stack>
  );
}
