import { Skeleton } from '@mantine/core';
import { lazy, Suspense } from 'react';
import type { LanguagesBarProps } from './LanguagesBar';

// The tabs, the add-language popover and its select load after the editor screen shows.
const LanguagesBar = lazy(() => import('./LanguagesBar').then((m) => ({ default: m.LanguagesBar })));

/** The "Languages" control of a template or campaign (LanguagesBar.tsx), loaded on first use. */
export function Languages(props: LanguagesBarProps) {
  return (
    <Suspense fallback={<Skeleton height={36} />}>
      <LanguagesBar {...props} />
    </Suspense>
  );
}
