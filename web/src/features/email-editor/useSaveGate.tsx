import { Text } from '@mantine/core';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { ContentCheck } from './types';

/**
 * The check list's say over a save: an error stops it (the list says what to fix), warnings ask
 * "Save anyway?" first, info or nothing lets it through.
 */
export function useSaveGate() {
  const [pending, setPending] = useState<{ proceed: () => void; count: number } | null>(null);
  const [blocked, setBlocked] = useState(false);
  /** Runs `proceed` now, after a confirmation, or not at all (sets `blocked`). */
  const gate = (checks: ContentCheck[], proceed: () => void) => {
    const errors = checks.filter((c) => c.severity === 'error').length;
    // `info` (Pigeon adds the unsubscribe footer itself) never asks.
    const warnings = checks.filter((c) => c.severity === 'warning').length;
    setBlocked(errors > 0);
    if (errors > 0) return;
    if (warnings > 0) setPending({ proceed, count: warnings });
    else proceed();
  };
  const dialog = (
    <ConfirmDialog
      opened={pending !== null}
      onClose={() => setPending(null)}
      title="Save anyway?"
      confirmLabel="Save anyway"
      dismissLabel="Keep editing"
      onConfirm={async () => pending?.proceed()}
    >
      <Text size="sm">
        The check list has {pending?.count === 1 ? 'a warning' : `${pending?.count ?? 0} warnings`}: the email can be
        sent as it is, but readers may see it worse than you intend.
      </Text>
    </ConfirmDialog>
  );
  return { gate, dialog, blocked, clearBlocked: () => setBlocked(false) };
}
