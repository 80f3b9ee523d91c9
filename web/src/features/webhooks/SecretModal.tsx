import { Alert, Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { CopyIconButton } from '../../components/CopyField';

/**
 * An endpoint's signing secret right after it was made (on create and on rotate): Pigeon shows it
 * only in that answer, so this is the one time it can be copied.
 */
export function SecretModal({ secret, url, onClose }: { secret: string | null; url?: string; onClose: () => void }) {
  return (
    <Modal opened={secret !== null} onClose={onClose} title={<Text fw={600}>Signing secret</Text>} size="lg" centered>
      <Stack gap="md" data-testid="secret-reveal">
        <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />}>
          Copy the secret now and store it with the code behind {url ?? 'the endpoint'}: it is shown only this once.
          Your endpoint uses it to check that a request really comes from Pigeon (Standard Webhooks signature). Lost it?
          Rotate it.
        </Alert>
        {secret && (
          // CopyField's block keeps one line; on a phone the secret wraps instead of scrolling.
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <Code block className="break-all" style={{ flex: 1, whiteSpace: 'pre-wrap' }} data-testid="webhook-secret">
              {secret}
            </Code>
            <CopyIconButton value={secret} label="Copy signing secret" />
          </Group>
        )}
        <Group justify="flex-end">
          <Button onClick={onClose}>I have copied it</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
