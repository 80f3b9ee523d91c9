import { Button, Group, Modal, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { setNavigationGuard } from '../../lib/guarded-history';

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

  const dialog = (
    <Modal opened={held !== null} onClose={stay} title={<Text fw={600}>Leave without saving?</Text>} centered>
      <Text size="sm" mb="lg">
        Your changes to this template are not saved. They are lost if you leave now.
      </Text>
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={stay} data-autofocus>
          Stay and keep editing
        </Button>
        <Button color="red" onClick={leave}>
          Leave without saving
        </Button>
      </Group>
    </Modal>
  );
  return {
    dialog,
    allowNext: () => {
      allow.current = true;
    },
  };
}
