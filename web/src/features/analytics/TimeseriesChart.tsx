import { Group, Text, useComputedColorScheme } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Timeseries } from './api';

type Scheme = 'light' | 'dark';

/**
 * The series drawn, in legend order. Colours from the Okabe–Ito palette (apart for the common colour
 * blindnesses), darker on light and lighter on dark so each line keeps 3:1 against the card; a dash
 * pattern of their own keeps lines that lie on each other (sent = delivered) both visible.
 */
export const SERIES = [
  { key: 'sent', label: 'Sent', color: { light: '#0b6aa2', dark: '#56b4e9' }, dash: [] },
  { key: 'delivered', label: 'Delivered', color: { light: '#00785a', dark: '#3fd6a4' }, dash: [8, 5] },
  { key: 'opened', label: 'Opened', color: { light: '#9a5b00', dark: '#f0b429' }, dash: [] },
  { key: 'clicked', label: 'Clicked', color: { light: '#9c3f78', dark: '#e9a0cd' }, dash: [2, 4] },
  { key: 'bounced', label: 'Bounced', color: { light: '#c23b00', dark: '#ff8a5c' }, dash: [12, 4, 2, 4] },
] as const;

const AXES: Record<Scheme, { text: string; grid: string }> = {
  light: { text: '#495057', grid: '#e9ecef' },
  dark: { text: '#c9c9c9', grid: '#3b3b3b' },
};

const HEIGHT = 300;
const number = new Intl.NumberFormat();
const day = new Intl.DateTimeFormat(undefined, { timeZone: 'UTC', dateStyle: 'medium' });
const hour = new Intl.DateTimeFormat(undefined, { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' });

/** A short sample of the series' line: its colour and dash, as drawn on the chart. */
function Swatch({ color, dash }: { color: string; dash: readonly number[] }) {
  return (
    <svg width={28} height={10} aria-hidden style={{ flexShrink: 0 }}>
      <line x1={1} y1={5} x2={27} y2={5} stroke={color} strokeWidth={3} strokeDasharray={dash.join(' ') || undefined} />
    </svg>
  );
}

/**
 * The time series as a uPlot line chart (a canvas) with a legend of its own under it: each series'
 * name, line sample and total, or its value at the hovered point. Resizes with its container and is
 * drawn again when the colour scheme changes. Loaded lazily with the analytics screen.
 */
export function TimeseriesChart({ series }: { series: Timeseries }) {
  const host = useRef<HTMLDivElement>(null);
  const scheme = useComputedColorScheme('light');
  const [hovered, setHovered] = useState<number | null>(null);
  useEffect(() => {
    const el = host.current!;
    const axis = {
      stroke: AXES[scheme].text,
      grid: { stroke: AXES[scheme].grid },
      ticks: { stroke: AXES[scheme].grid },
    };
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
        axes: [axis, { ...axis, values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) }],
        // The legend is drawn by React below: uPlot's own is a table of every series on one line.
        legend: { show: false },
        series: [
          {},
          ...SERIES.map((s) => ({
            label: s.label,
            stroke: s.color[scheme],
            dash: [...s.dash],
            width: 2,
            points: { show: series.data.length <= 60, stroke: s.color[scheme] },
          })),
        ],
        hooks: { setCursor: [(u) => setHovered(u.cursor.idx ?? null)] },
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
  }, [series, scheme]);
  const totals = SERIES.map((s) => `${series.data.reduce((n, p) => n + p[s.key], 0)} ${s.label.toLowerCase()}`).join(
    ', ',
  );
  const point = hovered === null ? null : series.data[hovered];
  return (
    <div>
      <div
        ref={host}
        role="figure"
        aria-label={`Emails per ${series.interval}: ${totals}`}
        data-testid="timeseries-chart"
        style={{ width: '100%', minHeight: HEIGHT }}
      />
      <Group gap="md" mt="xs" wrap="wrap" role="group" aria-label="Legend" data-testid="chart-legend">
        <Text size="sm" c="dimmed" w="100%" data-testid="legend-when">
          {point
            ? `${(series.interval === 'hour' ? hour : day).format(new Date(point.date))} (UTC)`
            : `Totals for the ${series.interval === 'hour' ? 'last 48 hours' : 'last 30 days'}; point at the chart for one ${series.interval}.`}
        </Text>
        {SERIES.map((s) => (
          <Group key={s.key} gap={6} wrap="nowrap" data-series={s.key}>
            <Swatch color={s.color[scheme]} dash={s.dash} />
            <Text size="sm">{s.label}</Text>
            <Text size="sm" fw={700}>
              {number.format(point ? point[s.key] : series.data.reduce((n, p) => n + p[s.key], 0))}
            </Text>
          </Group>
        ))}
      </Group>
    </div>
  );
}
