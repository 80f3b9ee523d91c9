import { Group, Loader, SegmentedControl, Switch, Text } from '@mantine/core';
import { useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert';
import { MACHINES_LEFT_OUT } from '../analytics/human';
import { STATS_DAYS, type StatsDays, type StepStats } from './stepFigures';
import { useWorkflowStats } from './statsApi';

/** The graph's "Show stats" state: on or off, the range, and the figures once loaded (null while off). */
export interface GraphStats {
  on: boolean;
  setOn: (on: boolean) => void;
  days: StatsDays;
  setDays: (d: StatsDays) => void;
  query: ReturnType<typeof useWorkflowStats>;
  /** Each step's figures to draw, or null (off, or not loaded yet). */
  stats: StepStats[] | null;
}

/** State of the stats drawn on a workflow's graph: off at first, the last 30 days when switched on. */
export function useGraphStats(projectId: string, workflowId: string): GraphStats {
  const [on, setOn] = useState(false);
  const [days, setDays] = useState<StatsDays>(30);
  const query = useWorkflowStats(projectId, workflowId, days, on);
  return { on, setOn, days, setDays, query, stats: on ? (query.data?.steps ?? null) : null };
}

/**
 * The "Show stats" switch over the graph and, once on, the range (last 7, 30 or 90 days) and what the
 * rates count: people, machine opens and clicks left out.
 */
export function GraphStatsBar({ g }: { g: GraphStats }) {
  return (
    <>
      <Group gap="md" wrap="wrap" data-testid="graph-stats-bar">
        <Switch label="Show stats" checked={g.on} onChange={(e) => g.setOn(e.currentTarget.checked)} />
        {g.on && (
          <SegmentedControl
            size="xs"
            aria-label="Stats period"
            value={String(g.days)}
            onChange={(v) => g.setDays(Number(v) as StatsDays)}
            data={STATS_DAYS.map((d) => ({ value: String(d), label: `Last ${d} days` }))}
          />
        )}
        {g.on && g.query.isFetching && <Loader size="xs" aria-label="Loading the stats" />}
      </Group>
      {g.on && g.query.isSuccess && (
        <Text size="xs" c="dimmed" data-testid="graph-stats-note">
          Runs that entered each step in the period; &quot;waiting now&quot; is now. Opens and clicks are by people over
          emails sent: {MACHINES_LEFT_OUT} are left out (hover a rate for the raw count).
        </Text>
      )}
      {g.on && g.query.isError && <ErrorAlert error={g.query.error} onRetry={() => void g.query.refetch()} />}
    </>
  );
}
