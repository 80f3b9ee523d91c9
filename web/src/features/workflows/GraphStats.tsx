import { Switch } from '@mantine/core';
import { lazy, Suspense, useState } from 'react';
import type { StatsDays, StepStats } from './stepFigures';
import { useWorkflowStats } from './statsApi';

// The range picker and its notes load when stats are switched on: most visits to the editor edit.
const GraphStatsOptions = lazy(() => import('./GraphStatsOptions').then((m) => ({ default: m.GraphStatsOptions })));

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
 * figures count (GraphStatsOptions.tsx).
 */
export function GraphStatsBar({ g }: { g: GraphStats }) {
  return (
    <div data-testid="graph-stats-bar">
      <Switch label="Show stats" checked={g.on} onChange={(e) => g.setOn(e.currentTarget.checked)} />
      {g.on && (
        <Suspense>
          <GraphStatsOptions g={g} />
        </Suspense>
      )}
    </div>
  );
}
