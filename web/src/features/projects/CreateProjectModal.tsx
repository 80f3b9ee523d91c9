import { Modal, Text } from '@mantine/core';
import { CreateProjectFlow } from './CreateProjectFlow';

/** {@link CreateProjectFlow} in a dialog (from the project switcher and the projects page). */
export function CreateProjectModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={<Text fw={600}>New project</Text>}
      centered
      size="lg"
      closeOnClickOutside={false}
    >
      {opened && <CreateProjectFlow onDone={onClose} />}
    </Modal>
  );
}
