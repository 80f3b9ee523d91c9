import { Button, Code, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ErrorAlert } from './ErrorAlert';

/** The confirmation dialog's props (see ConfirmDialog, which loads this module on first opening). */
export interface ConfirmDialogProps {
  opened: boolean;
  onClose: () => void;
  title: string;
  /** What will happen, plainly: what is lost, what breaks, whether it can be undone. */
  children: ReactNode;
  confirmLabel: string;
  /** Label of the button that closes without acting (default "Cancel"; change it when the action is itself a cancel). */
  dismissLabel?: string;
  /** Red confirm button for destructive actions. */
  danger?: boolean;
  /**
   * Typed confirmation: the confirm button stays disabled until exactly this text (e.g. the project's
   * name) is typed, for actions that cannot be undone.
   */
  requireText?: string;
  /** The action; the dialog closes when it resolves and shows the server's error when it fails. */
  onConfirm: () => Promise<unknown>;
}

/** The dialog itself: ConfirmDialog (components/ConfirmDialog.tsx) renders it once first opened. */
export function ConfirmDialogModal({
  opened,
  onClose,
  title,
  children,
  confirmLabel,
  dismissLabel = 'Cancel',
  danger,
  requireText,
  onConfirm,
}: ConfirmDialogProps) {
  const [typed, setTyped] = useState('');
  const action = useMutation({ mutationFn: onConfirm, onSuccess: () => close() });
  const close = () => {
    setTyped('');
    action.reset();
    onClose();
  };
  const ready = requireText === undefined || typed === requireText;
  return (
    <Modal opened={opened} onClose={close} title={<Text fw={600}>{title}</Text>} centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) action.mutate();
        }}
      >
        <Stack gap="md">
          <div>{children}</div>
          {requireText !== undefined && (
            <TextInput
              label={
                <>
                  Type <Code fz="sm">{requireText}</Code> to confirm
                </>
              }
              value={typed}
              onChange={(e) => setTyped(e.currentTarget.value)}
              autoComplete="off"
              data-autofocus
              data-testid="confirm-input"
            />
          )}
          {action.isError && <ErrorAlert error={action.error} />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              {dismissLabel}
            </Button>
            <Button type="submit" color={danger ? 'red' : undefined} disabled={!ready} loading={action.isPending}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
