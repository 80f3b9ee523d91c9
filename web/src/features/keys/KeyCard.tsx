import { Button, Code, Group, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { CopyIconButton } from '../../components/CopyField';
import { needsRole } from '../projects/permissions';
import type { KeyKind } from './api';

interface KeyCardProps {
  kind: KeyKind;
  /** The full key (the public key, kept by the server), or null when only `masked` is known. */
  full: string | null;
  /** `pk_…last4` / `sk_…last4`. */
  masked: string;
  /** What the key is for, a sentence. */
  use: string;
  /** Why the full key is not shown, under the masked one. */
  hiddenWhy: string;
  canRotate: boolean;
  onRotate: () => void;
}

/**
 * One API key: its name, its value (in full with a copy button when it may be shown, masked
 * otherwise), what it is for, and the button that rotates this key alone.
 */
export function KeyCard({ kind, full, masked, use, hiddenWhy, canRotate, onRotate }: KeyCardProps) {
  const name = kind === 'public' ? 'Public key' : 'Secret key';
  const rotate = (
    <Button
      size="xs"
      color="red"
      variant="light"
      leftSection={<IconRefresh size={14} />}
      onClick={onRotate}
      disabled={!canRotate}
      data-testid={`rotate-${kind}`}
    >
      Rotate {name.toLowerCase()}
    </Button>
  );
  return (
    <Paper p="lg" data-testid={`key-${kind}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Title order={2} size="h5">
            {name}
          </Title>
          {canRotate ? (
            rotate
          ) : (
            <Tooltip label={needsRole('owners and admins')}>
              <span>{rotate}</span>
            </Tooltip>
          )}
        </Group>
        {full ? (
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <Code block className="break-all" style={{ flex: 1, whiteSpace: 'pre-wrap' }} data-testid={`full-${kind}`}>
              {full}
            </Code>
            <CopyIconButton value={full} label={`Copy ${name.toLowerCase()}`} />
          </Group>
        ) : (
          <div>
            <Code data-testid={`masked-${kind}`}>{masked}</Code>
            <Text size="xs" c="dimmed" mt={4}>
              {hiddenWhy}
            </Text>
          </div>
        )}
        <Text size="sm" c="dimmed">
          {use}
        </Text>
      </Stack>
    </Paper>
  );
}
