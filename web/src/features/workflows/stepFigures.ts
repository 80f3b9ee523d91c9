import type { ResponseOf } from '../../api/types';
import { percent } from '../analytics/human';

/** `GET /workflows/:id/stats`: the range it covers and every step's figures. */
export type WorkflowStats = ResponseOf<'/workflows/{id}/stats', 'get'>;
/** One step's figures over the range (`waitingNow` whatever the range). */
export type StepStats = WorkflowStats['steps'][number];

/** The stats ranges the graph offers: the last 7, 30 or 90 days. */
export const STATS_DAYS = [7, 30, 90] as const;
export type StatsDays = (typeof STATS_DAYS)[number];

const DAY = 86_400_000;

/**
 * `[from, to)` of the last `days` days as ISO date-times, `to` rounded up to the minute so that a
 * re-render does not make a new query key (the analytics screen rounds the same way).
 */
export function statsRange(days: StatsDays, now: number): { from: string; to: string } {
  const to = Math.ceil(now / 60_000) * 60_000;
  return { from: new Date(to - days * DAY).toISOString(), to: new Date(to).toISOString() };
}

/** One figure drawn on a step node: `value` big, `label` beside it, `title` the longer words. */
export interface Figure {
  key: string;
  value: string;
  label: string;
  title: string;
}

const n = (v: number) => v.toLocaleString('en-US');

/**
 * What a step node shows of its stats: how many runs entered it in the range, how many wait there now,
 * how many completed (and failed) or ended there; a trigger counts the executions started. A SEND_EMAIL
 * step adds its mail: sent, and opens and clicks by people (MACHINES_LEFT_OUT left out, analytics/human.ts) over sent, the raw counts in the figure's `title`.
 */
export function stepFigures(s: StepStats): Figure[] {
  if (s.type === 'TRIGGER')
    return [{ key: 'started', value: n(s.entered), label: 'started', title: `${n(s.entered)} executions started` }];
  const out: Figure[] = [
    { key: 'entered', value: n(s.entered), label: 'entered', title: `${n(s.entered)} runs entered this step` },
    {
      key: 'waiting',
      value: n(s.waitingNow),
      label: 'waiting now',
      title: `${n(s.waitingNow)} executions wait at this step now`,
    },
    { key: 'completed', value: n(s.completed), label: 'completed', title: `${n(s.completed)} runs completed` },
    {
      key: 'exited',
      value: n(s.exited),
      label: 'exited',
      title: `${n(s.exited)} executions ended at this step (an exit, a cancel)`,
    },
  ];
  if (s.failed > 0)
    out.push({ key: 'failed', value: n(s.failed), label: 'failed', title: `${n(s.failed)} runs failed` });
  const m = s.mail;
  if (m) {
    out.push(
      { key: 'sent', value: n(m.sent), label: 'sent', title: `${n(m.sent)} emails sent of ${n(m.emails)} queued` },
      {
        key: 'opens',
        value: percent(m.humanOpened, m.sent),
        label: 'opened',
        title: `${n(m.humanOpened)} opened by people; ${n(m.opened)} with machine opens`,
      },
      {
        key: 'clicks',
        value: percent(m.humanClicked, m.sent),
        label: 'clicked',
        title: `${n(m.humanClicked)} clicked by people; ${n(m.clicked)} with machine clicks`,
      },
    );
  }
  return out;
}
