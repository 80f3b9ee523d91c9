import { Button, Group, Paper, Progress, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconRefresh, IconTrash } from '@tabler/icons-react';
import type { Domain } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorAlert } from '../../components/ErrorAlert';
import { StatusBadge } from '../../components/StatusBadge';
import { notifySuccess } from '../../components/notify';
import { formatRelative } from '../../lib/format';
import { projectKeys } from '../projects/api';
import { deleteDomain, domainKeys, verifyDomain } from './api';
import { RecordsTable } from './RecordsTable';

/** One sender domain: its state, its records, "verify now" (with progress while DNS is asked) and delete. */
export function DomainCard({ projectId, domain }: { projectId: string; domain: Domain }) {
  const qc = useQueryClient();
  const [deleting, del] = useDisclosure();
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: domainKeys.list(projectId) });
    void qc.invalidateQueries({ queryKey: projectKeys.setupState(projectId) });
    void qc.invalidateQueries({ queryKey: projectKeys.security(projectId) });
  };
  const verify = useMutation({
    mutationFn: () => verifyDomain(projectId, domain.id),
    onSuccess: (d) => {
      qc.setQueryData<Domain[]>(domainKeys.list(projectId), (list) => list?.map((x) => (x.id === d.id ? d : x)));
      refresh();
      if (d.verified) notifySuccess(`${d.domain} is verified: mail from it is DKIM-signed.`);
    },
  });
  const missing = domain.records.filter((r) => r.status !== 'verified').length;
  return (
    <Paper p="lg" data-domain={domain.domain}>
      <Stack gap="md">
        <Group justify="space-between" align="flex-start">
          <Stack gap={4}>
            <Group gap="sm">
              <Title order={2} size="h4">
                {domain.domain}
              </Title>
              {domain.verified ? (
                <StatusBadge tone="success" size="md" data-testid="domain-state">
                  Verified
                </StatusBadge>
              ) : (
                <StatusBadge tone="warning" size="md" data-testid="domain-state">
                  Pending
                </StatusBadge>
              )}
            </Group>
            <Text size="sm" c="dimmed">
              {domain.lastCheckedAt ? `Last checked ${formatRelative(domain.lastCheckedAt)}` : 'Not checked yet'}
              {!domain.verified && ' · publish the records below, then verify'}
              {domain.verified && missing > 0 && ` · ${missing} suggested record${missing > 1 ? 's' : ''} not found`}
            </Text>
          </Stack>
          <Group gap="sm">
            <Button
              variant={domain.verified ? 'default' : 'filled'}
              leftSection={<IconRefresh size={16} />}
              loading={verify.isPending}
              onClick={() => verify.mutate()}
            >
              Verify now
            </Button>
            <Button variant="subtle" color="red" leftSection={<IconTrash size={16} />} onClick={del.open}>
              Delete
            </Button>
          </Group>
        </Group>
        {verify.isPending && (
          <Stack gap={4} data-testid="verify-progress">
            <Text size="sm">Looking up the DKIM, SPF and DMARC records…</Text>
            <Progress value={100} striped animated aria-label={`Checking DNS records of ${domain.domain}`} />
          </Stack>
        )}
        {verify.isError && <ErrorAlert error={verify.error} title="The check could not run" />}
        {verify.isSuccess && !verify.data.verified && (
          <Text size="sm" c="orange.9" data-testid="verify-result">
            The DKIM record was not found yet. DNS changes can take a while to show; Pigeon keeps checking every 5
            minutes.
          </Text>
        )}
        <RecordsTable domain={domain.domain} records={domain.records} />
      </Stack>
      <ConfirmDialog
        opened={deleting}
        onClose={del.close}
        title={`Delete ${domain.domain}?`}
        confirmLabel="Delete domain"
        danger
        onConfirm={async () => {
          await deleteDomain(projectId, domain.id);
          refresh();
          notifySuccess(`${domain.domain} was deleted.`);
        }}
      >
        <Text size="sm">
          Its DKIM key is deleted too. Mail from this domain can no longer be sent until you add it again and publish
          the new DKIM record.
        </Text>
      </ConfirmDialog>
    </Paper>
  );
}
