import { Badge } from '@mantine/core';
import type { ReactNode } from 'react';

/** The tones of a state: done/healthy, waiting/attention, failed, neutral. */
export type Tone = 'success' | 'warning' | 'danger' | 'neutral';

// Pale backgrounds with the darkest shade of each colour as text: Mantine's light variant stays
// under WCAG AA contrast (4.5:1) for yellow, teal and gray.
const TONES: Record<Tone, { bg: string; c: string }> = {
  success: { bg: 'teal.0', c: 'teal.9' },
  warning: { bg: 'yellow.1', c: 'gray.9' },
  danger: { bg: 'red.0', c: 'red.9' },
  neutral: { bg: 'gray.1', c: 'gray.8' },
};

/** A small state label (verified, pending, failed…) in accessible colours. */
export function StatusBadge({ tone, children, size = 'sm', ...rest }: { tone: Tone; children: ReactNode; size?: 'xs' | 'sm' | 'md' | 'lg' } & Record<`data-${string}`, string>) {
  const t = TONES[tone];
  return <Badge variant="light" bg={t.bg} c={t.c} size={size} style={{ flexShrink: 0 }} {...rest}>{children}</Badge>;
}
