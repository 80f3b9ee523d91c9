import { lazy, Suspense } from 'react';
import type { ConfirmDialogProps } from './ConfirmDialogModal';
import { useOpenedOnce } from './useOpenedOnce';

// The dialog (Mantine's Modal and its scroll area) loads on its first opening, not with each screen
// that offers a delete or a disable.
const ConfirmDialogModal = lazy(() => import('./ConfirmDialogModal').then((m) => ({ default: m.ConfirmDialogModal })));

/**
 * The one confirmation dialog: states the consequence, optionally asks to type a name, runs the action
 * with a spinner, and keeps itself open with the server's message (and request id) if it fails.
 */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const loaded = useOpenedOnce(props.opened);
  return loaded ? (
    <Suspense>
      <ConfirmDialogModal {...props} />
    </Suspense>
  ) : null;
}
