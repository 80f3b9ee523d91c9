import { Button, Group, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconDownload, IconShredder } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { notifyError, notifySuccess } from '../../components/notify';
import { contactKeys } from '../contacts/api';
import { downloadContactData, eraseContact } from './api';

/**
 * A contact's data rights on its page: "Download data" (everything Pigeon holds about them, one JSON
 * file) and "Erase contact" (irreversible; the address must be typed to confirm).
 */
export function ContactDataActions({
  projectId,
  contact,
}: {
  projectId: string;
  contact: { id: string; email: string };
}) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [erasing, erase] = useDisclosure();
  const download = useMutation({
    mutationFn: () => downloadContactData(projectId, contact.id, contact.email),
    onError: (err) => notifyError(err, 'The data could not be downloaded'),
  });
  return (
    <Group gap="xs">
      <Button
        variant="default"
        leftSection={<IconDownload size={16} />}
        loading={download.isPending}
        onClick={() => download.mutate()}
      >
        Download data
      </Button>
      <Button variant="subtle" color="red" leftSection={<IconShredder size={16} />} onClick={erase.open}>
        Erase contact
      </Button>
      <ConfirmDialog
        opened={erasing}
        onClose={erase.close}
        title={`Erase ${contact.email}?`}
        confirmLabel="Erase for good"
        danger
        requireText={contact.email}
        onConfirm={async () => {
          await eraseContact(projectId, contact.id, contact.email);
          qc.removeQueries({ queryKey: contactKeys.one(projectId, contact.id) });
          void qc.invalidateQueries({ queryKey: contactKeys.all(projectId) });
          notifySuccess('The contact was erased. Their address is kept only as an unreadable code.');
          void navigate(`/p/${projectId}/contacts`);
        }}
      >
        <Text size="sm">
          Erasing removes this person and every copy of their address from Pigeon: their data, events, consent log, the
          contents of the emails sent to them and any export files of this project. Sent emails are still counted in
          reports, and if the address is suppressed it stays suppressed. This cannot be undone; download their data
          first if you need to give it to them.
        </Text>
      </ConfirmDialog>
    </Group>
  );
}
