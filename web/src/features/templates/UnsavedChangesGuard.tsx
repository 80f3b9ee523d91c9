import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useOpenedOnce } from '../../components/useOpenedOnce';
import { setNavigationGuard } from '../../lib/guarded-history';

// The dialog (Mantine's Modal) loads when a move is first held, not with the editor.
const LeaveDialog = lazy(() => import('./LeaveDialog').then((m) => ({ default: m.LeaveDialog })));

/**
 * Asks before leaving a form with unsaved changes: a dialog for a move inside the dashboard (links,
 * back and forward: lib/guarded-history.ts) and the browser's own question for closing or
 * reloading the tab (`beforeunload`). `allowNext()` lets the next move through unasked (a navigation
 * the save or delete itself makes).
 */
export function useUnsavedChangesGuard(dirty: boolean) {
  const allow = useRef(false);
  const dirtyNow = useRef(dirty);
  useEffect(() => {
    dirtyNow.current = dirty;
  });
  // The held move's way through, while the dialog asks.
  const [held, setHeld] = useState<(() => void) | null>(null);
  useEffect(
    () =>
      setNavigationGuard(({ from, to, proceed }) => {
        if (!dirtyNow.current || allow.current || to === from) return false;
        setHeld(() => proceed);
        return true;
      }),
    [],
  );
  const stay = () => setHeld(null);
  const leave = () => {
    setHeld(null);
    held?.();
  };
  useEffect(() => {
    if (!dirty) return;
    const ask = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [dirty]);

  const opened = held !== null;
  const loaded = useOpenedOnce(opened);
  const dialog = loaded ? (
    <Suspense>
      <LeaveDialog opened={opened} onStay={stay} onLeave={leave} />
    </Suspense>
  ) : null;
  return {
    dialog,
    allowNext: () => {
      allow.current = true;
    },
  };
}
