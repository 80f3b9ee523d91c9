import { Alert, Stack } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { CopyField } from '../../components/CopyField';

/**
 * A freshly made key pair (after creating a project or rotating both): Pigeon stores only the secret
 * key's SHA-256, so this is the only time it can be copied; the public key is also on the keys screen.
 */
export function KeysReveal({ publicKey, secretKey }: { publicKey: string; secretKey: string }) {
  return (
    <Stack gap="md" data-testid="keys-reveal">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />}>
        Copy the secret key now and keep it somewhere safe: Pigeon keeps only a hash of it, so it cannot be shown again
        (if lost, rotate it). The public key stays on the API keys screen.
      </Alert>
      <CopyField label="Public key" value={publicKey} testId="public-key" />
      <CopyField label="Secret key" value={secretKey} testId="secret-key" />
    </Stack>
  );
}
