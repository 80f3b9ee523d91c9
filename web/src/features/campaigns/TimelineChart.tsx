import { Group, Text } from '@mantine/core';
import type { Timeline } from './api';

// Sent, not the timeline's `delivered`: that one also counts mail a plain SMTP relay merely accepted,
// which the report keeps apart from confirmed delivery.
const SERIES = [
  { key: 'sent', label: 'Sent', color: 'var(--mantine-color-teal-6)' },
  { key: 'opened', label: 'Opened', color: 'var(--mantine-color-blue-6)' },
  { key: 'clicked', label: 'Clicked', color: 'var(--mantine-color-violet-6)' },
  { key: 'bounced', label: 'Bounced', color: 'var(--mantine-color-red-6)' },
] as const;

/**
 * Hourly sends, opens, clicks and bounces of a campaign as grouped bars (plain SVG, loaded as its
 * own chunk with the report). Hours are shown in the person's zone.
 */
export function TimelineChart({ data }: { data: Timeline['data'] }) {
  const W = 720,
    H = 220,
    PAD = 28;
  const max = Math.max(1, ...data.flatMap((d) => SERIES.map((s) => d[s.key])));
  const slot = (W - PAD) / Math.max(data.length, 1);
  const bar = Math.max(2, Math.min(14, (slot - 6) / SERIES.length));
  const y = (v: number) => H - PAD - (v / max) * (H - PAD * 2);
  const summary = data
    .map(
      (d) =>
        `${new Date(d.date).toLocaleString()}: ${SERIES.map((s) => `${d[s.key]} ${s.label.toLowerCase()}`).join(', ')}`,
    )
    .join('; ');
  return (
    <figure style={{ margin: 0 }} data-testid="timeline-chart">
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label={`Activity per hour. ${summary}`}>
        <line x1={PAD} x2={W} y1={H - PAD} y2={H - PAD} stroke="var(--mantine-color-default-border)" />
        <text x={0} y={y(max) + 4} fontSize={10} fill="currentColor">
          {max}
        </text>
        <text x={0} y={H - PAD} fontSize={10} fill="currentColor">
          0
        </text>
        {data.map((d, i) => {
          const x0 = PAD + i * slot + (slot - bar * SERIES.length) / 2;
          return (
            <g key={d.date}>
              {SERIES.map((s, j) => (
                <rect
                  key={s.key}
                  x={x0 + j * bar}
                  y={y(d[s.key])}
                  width={bar - 1}
                  height={H - PAD - y(d[s.key])}
                  fill={s.color}
                />
              ))}
              {(data.length <= 12 || i % Math.ceil(data.length / 12) === 0) && (
                <text x={PAD + i * slot + slot / 2} y={H - 8} fontSize={10} textAnchor="middle" fill="currentColor">
                  {new Date(d.date).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <Group gap="md" component="figcaption">
        {SERIES.map((s) => (
          <Group key={s.key} gap={4}>
            <span
              aria-hidden
              style={{ width: 10, height: 10, background: s.color, display: 'inline-block', borderRadius: 2 }}
            />
            <Text size="xs">{s.label}</Text>
          </Group>
        ))}
      </Group>
    </figure>
  );
}
