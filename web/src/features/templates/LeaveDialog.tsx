import { Button, Group, Modal, Text } from '@mantine/core';

/** Asks whether to leave a template with unsaved changes (useUnsavedChangesGuard opens it). */
export function LeaveDialog({ opened, onStay, onLeave }: { opened: boolean; onStay: () => void; onLeave: () => void }) {
  return (
    <Modal opened={opened} onClose={onStay} title={<Text fw={600}>Leave without saving?</Text>} centered>
      <Text size="sm" mb="lg">
        Your changes to this template are not saved. They are lost if you leave now.
      </Text>
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onStay} data-autofocus>
          Stay and keep editing
        </Button>
        <Button color="red" onClick={onLeave}>
          Leave without saving
        </Button>
      </Group>
    </Modal>
  );
}
