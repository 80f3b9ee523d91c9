import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Code,
  Group,
  Modal,
  Paper,
  Stack,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconAlertTriangle, IconPlus, IconTrash } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyField } from '../../components/CopyField';
import { DataTable } from '../../components/DataTable';
import { QueryState } from '../../components/QueryState';
import { notifySuccess } from '../../components/notify';
import { useOpenedOnce } from '../../components/useOpenedOnce';
import { formatDate, formatRelative } from '../../lib/format';
import { needsRole } from '../projects/permissions';
import { useProject } from '../projects/ProjectContext';
import { deleteScopedKey, scopedKeyKeys, useScopedKeys, type CreatedScopedKey, type ScopedKey } from './scoped-api';

// The dialog and its rules load on its first opening, not with the page.
const ScopedKeyModal = lazy(() => import('./ScopedKeyModal').then((m) => ({ default: m.ScopedKeyModal })));

/**
 * The "Scoped keys" section of the keys screen (`GET/POST/DELETE /projects/:id/api-keys`): named keys
 * limited to scopes, addresses and a lifetime; created (shown once) and deleted by owners and admins.
 */
export function ScopedKeysSection() {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const query = useScopedKeys(project.id);
  const [creating, setCreating] = useState(false);
  const [fresh, setFresh] = useState<CreatedScopedKey | null>(null);
  const [deleting, setDeleting] = useState<ScopedKey | null>(null);
  const modalLoaded = useOpenedOnce(creating);
  const add = (
    <Button
      leftSection={<IconPlus size={16} />}
      variant="light"
      onClick={() => setCreating(true)}
      disabled={!can.rotateKeys}
    >
      New scoped key
    </Button>
  );
  return (
    <Paper p="lg" data-testid="scoped-keys">
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <div>
            <Title order={2} size="h5">
              Scoped keys
            </Title>
            <Text size="sm" c="dimmed" maw={640}>
              Keys for one job each: a key may do only what you tick, optionally only from given addresses and until a
              given day. A leaked scoped key can do no more than that. They never manage members or keys.
            </Text>
          </div>
          {can.rotateKeys ? (
            add
          ) : (
            <Tooltip label={needsRole('owners and admins')}>
              <span>{add}</span>
            </Tooltip>
          )}
        </Group>
        <QueryState
          query={query}
          empty={
            <Text size="sm" c="dimmed">
              No scoped keys yet.
            </Text>
          }
        >
          {(rows) => (
            <DataTable<ScopedKey>
              caption="Scoped keys"
              rows={rows}
              rowKey={(k) => k.id}
              rowLabel={(k) => k.name}
              minWidth={820}
              columns={[
                {
                  key: 'name',
                  header: 'Name',
                  render: (k) => (
                    <>
                      <Text fw={500} size="sm">
                        {k.name}
                      </Text>
                      <Code>{k.hint}…</Code>
                    </>
                  ),
                },
                {
                  key: 'scopes',
                  header: 'Scopes',
                  width: 260,
                  render: (k) => (
                    <Group gap={4}>
                      {k.scopes.map((s) => (
                        <Badge key={s} variant="light" color="gray" tt="none" size="sm">
                          {s}
                        </Badge>
                      ))}
                      {k.allowedIps && (
                        <Text size="xs" c="dimmed">
                          From {k.allowedIps.join(', ')}
                        </Text>
                      )}
                    </Group>
                  ),
                },
                {
                  key: 'used',
                  header: 'Last used',
                  width: 120,
                  render: (k) => (
                    <Text size="sm" c={k.lastUsedAt ? undefined : 'dimmed'}>
                      {k.lastUsedAt ? formatRelative(k.lastUsedAt) : 'Never'}
                    </Text>
                  ),
                },
                {
                  key: 'expires',
                  header: 'Expires',
                  width: 120,
                  render: (k) =>
                    !k.expiresAt ? (
                      <Text size="sm" c="dimmed">
                        Never
                      </Text>
                    ) : new Date(k.expiresAt).getTime() <= Date.now() ? (
                      <Badge color="red" variant="light" tt="none">
                        Expired {formatDate(k.expiresAt)}
                      </Badge>
                    ) : (
                      <Text size="sm">{formatDate(k.expiresAt)}</Text>
                    ),
                },
                {
                  key: 'by',
                  header: 'Created by',
                  width: 180,
                  render: (k) => (
                    <Text size="sm" c={k.createdBy ? undefined : 'dimmed'} className="break-all">
                      {k.createdBy?.email ?? 'A removed account'}
                    </Text>
                  ),
                },
                {
                  key: 'actions',
                  header: 'Actions',
                  width: 80,
                  render: (k) => (
                    <Tooltip label={can.rotateKeys ? 'Delete' : needsRole('owners and admins')}>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`Delete ${k.name}`}
                        disabled={!can.rotateKeys}
                        onClick={() => setDeleting(k)}
                      >
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Tooltip>
                  ),
                },
              ]}
            />
          )}
        </QueryState>
      </Stack>

      {modalLoaded && (
        <Suspense>
          <ScopedKeyModal
            projectId={project.id}
            opened={creating}
            onClose={() => setCreating(false)}
            onCreated={setFresh}
          />
        </Suspense>
      )}

      <Modal
        opened={fresh !== null}
        onClose={() => setFresh(null)}
        title={<Text fw={600}>Your new scoped key</Text>}
        centered
        size="lg"
        closeOnClickOutside={false}
      >
        {fresh && (
          <Stack gap="md" data-testid="scoped-key-reveal">
            <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />}>
              Copy the key now and keep it somewhere safe: Pigeon keeps only a hash of it, so it cannot be shown again.
              If you lose it, delete it and create another.
            </Alert>
            <CopyField label={`Key “${fresh.name}”`} value={fresh.key} testId="scoped-key" />
            <Group justify="flex-end">
              <Button onClick={() => setFresh(null)}>I have saved the key</Button>
            </Group>
          </Stack>
        )}
      </Modal>

      <ConfirmDialog
        opened={deleting !== null}
        onClose={() => setDeleting(null)}
        title="Delete this key?"
        confirmLabel="Delete key"
        danger
        onConfirm={async () => {
          await deleteScopedKey(project.id, deleting!.id);
          void qc.invalidateQueries({ queryKey: scopedKeyKeys.all(project.id) });
          notifySuccess(`Key “${deleting!.name}” deleted; it no longer works.`);
        }}
      >
        <Text size="sm">
          “{deleting?.name}” stops working at once: every call made with it is refused from now on. This cannot be
          undone.
        </Text>
      </ConfirmDialog>
    </Paper>
  );
}
