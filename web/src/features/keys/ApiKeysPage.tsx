import { Button, Code, Group, Modal, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import type { KeyPair } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { projectKeys, regenerateKeys } from '../projects/api';
import { needsRole } from '../projects/permissions';
import { useProject } from '../projects/ProjectContext';
import { KeysReveal } from './KeysReveal';

interface KeyRow {
  name: string;
  masked: string;
  use: string;
}

/** `/p/:projectId/keys`: the masked keys, and rotation (OWNER, ADMIN) with the new pair shown once. */
export function ApiKeysPage() {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const [confirming, confirm] = useDisclosure();
  const [fresh, setFresh] = useState<KeyPair | null>(null);
  const rows: KeyRow[] = [
    {
      name: 'Public key',
      masked: project.public,
      use: 'POST /v1/track only; safe to ship in a browser or mobile app.',
    },
    {
      name: 'Secret key',
      masked: project.secret,
      use: 'Every other endpoint (/v1/send, contacts, templates…). Keep it on your servers.',
    },
  ];
  const rotate = async () => {
    const pair = await regenerateKeys(project.id);
    setFresh(pair);
    await qc.invalidateQueries({ queryKey: projectKeys.all });
    void qc.invalidateQueries({ queryKey: projectKeys.one(project.id) });
  };
  const rotateButton = (
    <Button
      color="red"
      variant="light"
      leftSection={<IconRefresh size={16} />}
      onClick={confirm.open}
      disabled={!can.rotateKeys}
      data-testid="rotate-keys"
    >
      Rotate keys
    </Button>
  );
  return (
    <>
      <PageHeader
        title="API keys"
        description="Your app calls Pigeon with these keys in the Authorization header (Bearer). Pigeon stores only their hash, so they are shown masked."
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
        <DataTable
          caption="API keys of this project"
          rows={rows}
          rowKey={(r) => r.name}
          columns={[
            {
              key: 'name',
              header: 'Key',
              render: (r) => (
                <Text fw={500} size="sm">
                  {r.name}
                </Text>
              ),
              width: 140,
            },
            {
              key: 'value',
              header: 'Value',
              render: (r) => <Code data-testid={`masked-${r.name.split(' ')[0].toLowerCase()}`}>{r.masked}</Code>,
              width: 160,
            },
            {
              key: 'use',
              header: 'Used for',
              render: (r) => (
                <Text size="sm" c="dimmed">
                  {r.use}
                </Text>
              ),
            },
          ]}
        />
        <Paper p="lg">
          <Stack gap="xs">
            <Title order={2} size="h5">
              Lost a key, or one leaked?
            </Title>
            <Text size="sm" c="dimmed">
              Rotate them: both keys are replaced at once and the old ones stop working immediately. The new pair is
              shown once. Calls with the old keys answer 401 until your app uses the new ones.
            </Text>
          </Stack>
        </Paper>
      </Stack>

      <ConfirmDialog
        opened={confirming}
        onClose={confirm.close}
        title="Rotate both API keys?"
        confirmLabel="Rotate keys now"
        danger
        onConfirm={rotate}
      >
        <Text size="sm">
          The current public and secret keys stop working <b>at once</b>. Every integration that uses them (your
          app&apos;s /v1/send and /v1/track calls, SDKs, scripts) fails with 401 until you deploy the new keys.
        </Text>
      </ConfirmDialog>

      <Modal
        opened={fresh !== null}
        onClose={() => setFresh(null)}
        title={<Text fw={600}>Your new API keys</Text>}
        centered
        size="lg"
        closeOnClickOutside={false}
      >
        {fresh && (
          <Stack gap="md">
            <KeysReveal publicKey={fresh.public} secretKey={fresh.secret} />
            <Group justify="flex-end">
              <Button onClick={() => setFresh(null)}>I have saved the keys</Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );
}
