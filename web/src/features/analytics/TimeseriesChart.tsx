import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Timeseries } from './api';

/** The series drawn, in legend order, with colours that stay apart for common colour blindness. */
export const SERIES = [
  { key: 'sent', label: 'Sent', color: '#495057' },
  { key: 'delivered', label: 'Delivered', color: '#1c7ed6' },
  { key: 'opened', label: 'Opened', color: '#2f9e44' },
  { key: 'clicked', label: 'Clicked', color: '#f08c00' },
  { key: 'bounced', label: 'Bounced', color: '#e03131' },
] as const;

const HEIGHT = 300;

/**
 * The time series as a uPlot line chart (a canvas) with a legend; resizes with its container. Loaded
 * lazily with the analytics screen: the chart library stays out of the other screens.
 */
export function TimeseriesChart({ series }: { series: Timeseries }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current!;
    const data: uPlot.AlignedData = [
      series.data.map((p) => Date.parse(p.date) / 1000),
      ...SERIES.map((s) => series.data.map((p) => p[s.key])),
    ];
    const plot = new uPlot(
      {
        width: el.clientWidth || 600,
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
        axes: [{}, { values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) }],
        series: [
          { label: series.interval === 'hour' ? 'Hour (UTC)' : 'Day (UTC)' },
          ...SERIES.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            points: { show: series.data.length <= 60 },
          })),
        ],
      },
      data,
      el,
    );
    const ro = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: HEIGHT }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [series]);
  const totals = SERIES.map((s) => `${series.data.reduce((n, p) => n + p[s.key], 0)} ${s.label.toLowerCase()}`).join(
    ', ',
  );
  return (
    <div
      ref={host}
      role="figure"
      aria-label={`Emails per ${series.interval}: ${totals}`}
      data-testid="timeseries-chart"
      style={{ width: '100%', minHeight: HEIGHT }}
    />
  );
}
