import { Text, useComputedColorScheme } from '@mantine/core';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const COLOR = { light: '#0b6aa2', dark: '#56b4e9' };
const AXES = { light: { text: '#495057', grid: '#e9ecef' }, dark: { text: '#c9c9c9', grid: '#3b3b3b' } };
const HEIGHT = 180;
const when = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/**
 * The expected send curve: mails due per hour (uPlot bars, hours in the person's zone), with a
 * sentence saying the same for screen readers.
 */
export function SendCurve({ buckets }: { buckets: Array<{ at: string; count: number }> }) {
  const host = useRef<HTMLDivElement>(null);
  const scheme = useComputedColorScheme('light');
  useEffect(() => {
    const el = host.current!;
    // Every hour from the first to the last, empty hours at 0, so the bars keep their place in time.
    const first = Date.parse(buckets[0].at);
    const last = Date.parse(buckets[buckets.length - 1].at);
    const byHour = new Map(buckets.map((b) => [Date.parse(b.at), b.count]));
    const xs: number[] = [];
    const ys: number[] = [];
    for (let t = first - 3_600_000; t <= last + 3_600_000; t += 3_600_000) {
      xs.push(t / 1000);
      ys.push(byHour.get(t) ?? 0);
    }
    const axis = {
      stroke: AXES[scheme].text,
      grid: { stroke: AXES[scheme].grid },
      ticks: { stroke: AXES[scheme].grid },
    };
    const plot = new uPlot(
      {
        width: el.clientWidth || 600,
        height: HEIGHT,
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.15))] } },
        axes: [axis, { ...axis, values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) }],
        legend: { show: false },
        series: [
          {},
          {
            label: 'Mails per hour',
            stroke: COLOR[scheme],
            fill: `${COLOR[scheme]}55`,
            width: 1,
            paths: uPlot.paths.bars!({ size: [0.8, 40], align: 1 }),
            points: { show: false },
          },
        ],
      },
      [xs, ys],
      el,
    );
    const ro = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: HEIGHT }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [buckets, scheme]);
  const total = buckets.reduce((n, b) => n + b.count, 0);
  const start = when.format(new Date(buckets[0].at));
  const end = when.format(new Date(Date.parse(buckets[buckets.length - 1].at) + 3_600_000));
  const summary =
    buckets.length === 1
      ? `${total} mail${total === 1 ? '' : 's'} in the hour from ${start}.`
      : `${total} mails from ${start} to ${end}, at most ${Math.max(...buckets.map((b) => b.count))} in one hour.`;
  return (
    <figure style={{ margin: 0 }} data-testid="send-curve">
      <div
        ref={host}
        role="img"
        aria-label={`Expected send curve: ${summary}`}
        style={{ width: '100%', minHeight: HEIGHT }}
      />
      <Text size="sm" component="figcaption" c="dimmed">
        Expected: {summary}
      </Text>
    </figure>
  );
}
