import type { ReactNode } from 'react';

/** The tones of a state: done/healthy, waiting/attention, failed, neutral. */
export type Tone = 'success' | 'warning' | 'danger' | 'neutral';

/**
 * A small state label (verified, pending, failed…): Mantine's light badge drawn by CSS alone
 * (`.pigeon-badge` in global.css), since tables show one per row. Pale backgrounds with the darkest
 * shade of each colour as text: Mantine's own light variant stays under WCAG AA contrast (4.5:1)
 * for yellow, teal and gray.
 */
export function StatusBadge({
  tone,
  children,
  size = 'sm',
  ...rest
}: { tone: Tone; children: ReactNode; size?: 'xs' | 'sm' | 'md' | 'lg' } & Record<`data-${string}`, string>) {
  return (
    <span className="pigeon-badge" data-tone={tone} data-size={size} {...rest}>
      {children}
    </span>
  );
}
