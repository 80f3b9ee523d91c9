import { Button, Group, Modal, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import type { KeyPair } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyField } from '../../components/CopyField';
import { notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { projectKeys, regenerateKeys } from '../projects/api';
import { needsRole } from '../projects/permissions';
import { useProject } from '../projects/ProjectContext';
import { regenerateKey, type KeyKind } from './api';
import { KeyCard } from './KeyCard';
import { KeysReveal } from './KeysReveal';
import { ScopedKeysSection } from './ScopedKeysSection';

type Rotation = KeyKind | 'both';

// What stops working, said where the rotation is confirmed: the reader decides with it.
const BREAKS: Record<Rotation, { title: string; confirm: string; text: string }> = {
  public: {
    title: 'Rotate the public key?',
    confirm: 'Rotate public key now',
    text:
      'The current public key stops working at once: the /v1/track calls of your website and apps (the ' +
      'snippets and SDKs that send events from browsers or phones) fail with 401 until they use the new key. ' +
      'The secret key keeps working.',
  },
  secret: {
    title: 'Rotate the secret key?',
    confirm: 'Rotate secret key now',
    text:
      'The current secret key stops working at once: every call from your servers (/v1/send, contacts, ' +
      'templates, campaigns, SDKs, scripts, SMTP submission) fails with 401 until you deploy the new key. ' +
      'The public key keeps working.',
  },
  both: {
    title: 'Rotate both API keys?',
    confirm: 'Rotate keys now',
    text:
      "Both keys stop working at once: every integration that uses them (your app's /v1/send and /v1/track " +
      'calls, SDKs, scripts) fails with 401 until you deploy the new keys.',
  },
};

/**
 * `/p/:projectId/keys`: the public key in full with a copy button (it is safe to show), the secret
 * key masked; rotation (OWNER, ADMIN) of either key alone or both, each after a warning naming what
 * breaks, with a new secret key shown once; below them the project's scoped keys (ScopedKeysSection).
 */
export function ApiKeysPage() {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState<Rotation | null>(null);
  const [freshPair, setFreshPair] = useState<KeyPair | null>(null);
  const [freshSecret, setFreshSecret] = useState<string | null>(null);
  const refresh = async () => {
    await qc.invalidateQueries({ queryKey: projectKeys.all });
    void qc.invalidateQueries({ queryKey: projectKeys.one(project.id) });
  };
  const rotate = async () => {
    if (confirming === 'both') {
      setFreshPair(await regenerateKeys(project.id));
    } else if (confirming) {
      const r = await regenerateKey(project.id, confirming);
      if (r.key === 'secret') setFreshSecret(r.value);
      else notifySuccess('The public key was replaced; the old one no longer works.');
    }
    await refresh();
  };
  const rotateButton = (
    <Button
      color="red"
      variant="light"
      leftSection={<IconRefresh size={16} />}
      onClick={() => setConfirming('both')}
      disabled={!can.rotateKeys}
      data-testid="rotate-keys"
    >
      Rotate both keys
    </Button>
  );
  const breaks = confirming ? BREAKS[confirming] : BREAKS.both;
  return (
    <>
      <PageHeader
        title="API keys"
        description="Your app calls Pigeon with these keys in the Authorization header (Bearer). The public key is safe to show; the secret key is stored only as a hash, so it is shown once, when it is made."
        actions={
          can.rotateKeys ? (
            rotateButton
          ) : (
            <Tooltip label={needsRole('owners and admins')}>
              <span>{rotateButton}</span>
            </Tooltip>
          )
        }
      />
      <Stack gap="lg">
        <KeyCard
          kind="public"
          full={project.publicKey ?? null}
          masked={project.public}
          use="Sends events with POST /v1/track only; safe to ship in a browser or mobile app."
          hiddenWhy="This key was made before Pigeon kept public keys: rotate it to see the new one here."
          canRotate={can.rotateKeys}
          onRotate={() => setConfirming('public')}
        />
        <KeyCard
          kind="secret"
          full={null}
          masked={project.secret}
          use="Every other endpoint (/v1/send, contacts, templates…). Keep it on your servers."
          hiddenWhy="Shown once, when it is made. Lost it? Rotate it."
          canRotate={can.rotateKeys}
          onRotate={() => setConfirming('secret')}
        />
        <ScopedKeysSection />
        <Paper p="lg">
          <Stack gap="xs">
            <Title order={2} size="h5">
              Lost a key, or one leaked?
            </Title>
            <Text size="sm" c="dimmed">
              Rotate it: the old key stops working immediately, the other key keeps working. A new secret key is shown
              once. Calls with an old key answer 401 until your app uses the new one.
            </Text>
          </Stack>
        </Paper>
      </Stack>

      <ConfirmDialog
        opened={confirming !== null}
        onClose={() => setConfirming(null)}
        title={breaks.title}
        confirmLabel={breaks.confirm}
        danger
        onConfirm={rotate}
      >
        <Text size="sm" data-testid="rotate-warning">
          {breaks.text}
        </Text>
      </ConfirmDialog>

      <Modal
        opened={freshPair !== null}
        onClose={() => setFreshPair(null)}
        title={<Text fw={600}>Your new API keys</Text>}
        centered
        size="lg"
        closeOnClickOutside={false}
      >
        {freshPair && (
          <Stack gap="md">
            <KeysReveal publicKey={freshPair.public} secretKey={freshPair.secret} />
            <Group justify="flex-end">
              <Button onClick={() => setFreshPair(null)}>I have saved the keys</Button>
            </Group>
          </Stack>
        )}
      </Modal>

      <Modal
        opened={freshSecret !== null}
        onClose={() => setFreshSecret(null)}
        title={<Text fw={600}>Your new secret key</Text>}
        centered
        size="lg"
        closeOnClickOutside={false}
      >
        {freshSecret && (
          <Stack gap="md" data-testid="secret-reveal">
            <Text size="sm">
              Copy it now and keep it somewhere safe: Pigeon keeps only a hash of it, so it cannot be shown again.
            </Text>
            <CopyField label="Secret key" value={freshSecret} testId="secret-key" />
            <Group justify="flex-end">
              <Button onClick={() => setFreshSecret(null)}>I have saved the key</Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );
}
