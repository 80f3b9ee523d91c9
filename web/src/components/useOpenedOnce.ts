import { useState } from 'react';

/**
 * True from the first render where `opened` is true, and from then on. A dialog whose code loads
 * lazily on its first opening renders behind this: nothing is fetched until the user asks for it,
 * and once loaded it stays mounted, so it closes with its transition and keeps its state as an
 * always-mounted dialog would.
 */
export function useOpenedOnce(opened: boolean): boolean {
  const [once, setOnce] = useState(opened);
  // Set during render (React's "storing information from previous renders"), so the first opening
  // renders the dialog in the same pass instead of one effect later.
  if (opened && !once) setOnce(true);
  return once || opened;
}
