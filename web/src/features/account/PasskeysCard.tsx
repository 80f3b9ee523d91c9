import { ActionIcon, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorAlert } from '../../components/ErrorAlert';
import { QueryState } from '../../components/QueryState';
import { addPasskey, removePasskey, renamePasskey, securityKeys, usePasskeys } from './security-api';

type Passkey = { id: string; name: string; createdAt: string; lastUsedAt: string | null };

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/** A passkey's row: its name (renamed in place), when added and last used, and remove. */
function PasskeyRow({ pk, onChanged }: { pk: Passkey; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(pk.name);
  const [removing, setRemoving] = useState(false);
  const rename = useMutation({
    mutationFn: () => renamePasskey(pk.id, name),
    onSuccess: () => {
      setEditing(false);
      onChanged();
    },
  });
  return (
    <Paper withBorder p="sm" data-testid="passkey-row">
      {editing ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            rename.mutate();
          }}
        >
          <Group gap="sm" align="flex-end">
            <TextInput label="Passkey name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
            <Button type="submit" loading={rename.isPending}>
              Save
            </Button>
            <Button variant="default" onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </Group>
          {rename.isError && <ErrorAlert error={rename.error} />}
        </form>
      ) : (
        <Group justify="space-between" wrap="nowrap">
          <div>
            <Text fw={500}>{pk.name}</Text>
            <Text size="xs" c="dimmed">
              Added {when(pk.createdAt)} · last used {when(pk.lastUsedAt)}
            </Text>
          </div>
          <Group gap={4} wrap="nowrap">
            <ActionIcon variant="subtle" color="gray" aria-label={`Rename ${pk.name}`} onClick={() => setEditing(true)}>
              <IconPencil size={16} />
            </ActionIcon>
            <ActionIcon variant="subtle" color="red" aria-label={`Remove ${pk.name}`} onClick={() => setRemoving(true)}>
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        </Group>
      )}
      <ConfirmDialog
        opened={removing}
        onClose={() => setRemoving(false)}
        title={`Remove the passkey “${pk.name}”?`}
        confirmLabel="Remove passkey"
        danger
        onConfirm={async () => {
          await removePasskey(pk.id);
          onChanged();
        }}
      >
        You will no longer be able to sign in with it. The passkey itself stays on your device; remove it there too if
        you no longer need it.
      </ConfirmDialog>
    </Paper>
  );
}

/** Account → Security: passkeys, to sign in without a password (or as the second step after it). */
export function PasskeysCard() {
  const qc = useQueryClient();
  const list = usePasskeys();
  const [name, setName] = useState('');
  const refresh = () => void qc.invalidateQueries({ queryKey: securityKeys.passkeys });
  const add = useMutation({
    mutationFn: () => addPasskey(name.trim()),
    onSuccess: () => {
      setName('');
      refresh();
    },
  });
  return (
    <Paper p="lg">
      <Stack gap="md">
        <Title order={2} size="h4">
          Passkeys
        </Title>
        <Text size="sm">
          A passkey signs you in with your fingerprint, face or screen lock instead of a password, and can’t be phished.
          After a password, it also serves as the second step.
        </Text>
        <QueryState query={list}>
          {(rows) => (
            <Stack gap="xs">
              {rows.length === 0 && (
                <Text size="sm" c="dimmed">
                  No passkeys yet.
                </Text>
              )}
              {rows.map((pk) => (
                <PasskeyRow key={pk.id} pk={pk} onChanged={refresh} />
              ))}
            </Stack>
          )}
        </QueryState>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate();
          }}
        >
          <Group gap="sm" align="flex-end">
            <TextInput
              label="Name of the new passkey"
              placeholder="Work laptop"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
            />
            <Button type="submit" loading={add.isPending} disabled={!name.trim()}>
              Add a passkey
            </Button>
          </Group>
        </form>
        {add.isError && <ErrorAlert error={add.error} title="The passkey was not added" />}
      </Stack>
    </Paper>
  );
}
