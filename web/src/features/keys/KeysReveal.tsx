import { Alert, Stack } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { CopyField } from '../../components/CopyField';

/**
 * A freshly made key pair, shown once (after creating a project or rotating): Pigeon stores only their
 * SHA-256, so this is the only time the full keys can be copied.
 */
export function KeysReveal({ publicKey, secretKey }: { publicKey: string; secretKey: string }) {
  return (
    <Stack gap="md" data-testid="keys-reveal">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />}>
        Copy both keys now and keep the secret key somewhere safe. Pigeon keeps only a hash of them, so they cannot be
        shown again; if lost, rotate them.
      </Alert>
      <CopyField label="Public key" value={publicKey} testId="public-key" />
      <CopyField label="Secret key" value={secretKey} testId="secret-key" />
    </Stack>
  );
}
