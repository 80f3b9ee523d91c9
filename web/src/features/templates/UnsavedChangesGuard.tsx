import { Button, Group, Modal, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useBlocker } from 'react-router';

/**
 * Asks before leaving a form with unsaved changes: a dialog for a move inside the dashboard (links,
 * back and forward: React Router's useBlocker) and the browser's own question for closing or
 * reloading the tab (`beforeunload`). `allowNext()` lets the next move through unasked (a navigation
 * the save or delete itself makes).
 */
export function useUnsavedChangesGuard(dirty: boolean) {
  const allow = useRef(false);
  const dirtyNow = useRef(dirty);
  useEffect(() => {
    dirtyNow.current = dirty;
  });
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirtyNow.current && !allow.current && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (!dirty) return;
    const ask = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [dirty]);

  const dialog = (
    <Modal
      opened={blocker.state === 'blocked'}
      onClose={() => blocker.reset?.()}
      title={<Text fw={600}>Leave without saving?</Text>}
      centered
    >
      <Text size="sm" mb="lg">
        Your changes to this template are not saved. They are lost if you leave now.
      </Text>
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={() => blocker.reset?.()} data-autofocus>
          Stay and keep editing
        </Button>
        <Button color="red" onClick={() => blocker.proceed?.()}>
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
