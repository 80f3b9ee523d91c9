import { Alert, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { IconAlertTriangle, IconHeartbeat } from '@tabler/icons-react';
import { api, unwrap } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { formatDateTime } from '../../lib/format';
import { projectKeys, useProjectSecurity } from '../projects/api';
import { useProject } from '../projects/ProjectContext';
import { pct, rateSentence, summarySentence, type SenderHealth, type WindowHealth } from './words';

const LEVELS: Record<SenderHealth['level'], { label: string; tone: Tone }> = {
  healthy: { label: 'Healthy', tone: 'success' },
  warning: { label: 'Warning', tone: 'warning' },
  critical: { label: 'Critical', tone: 'danger' },
};

function LevelBadge({ level }: { level: SenderHealth['level'] }) {
  return (
    <StatusBadge tone={LEVELS[level].tone} data-level={level}>
      {LEVELS[level].label}
    </StatusBadge>
  );
}

/** One window (7 or 30 days): the two rates as figures and as sentences. */
function WindowCard({ w, h }: { w: WindowHealth; h: SenderHealth }) {
  return (
    <Paper p="lg" data-testid={`health-${w.days}`}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            Last {w.days} days
          </Title>
          <LevelBadge level={w.level} />
        </Group>
        <SimpleGrid cols={3}>
          {[
            ['Mails sent', w.sent.toLocaleString()],
            ['Bounce rate', pct(w.bounceRate)],
            ['Complaint rate', pct(w.complaintRate)],
          ].map(([label, value]) => (
            <div key={label}>
              <Text size="xs" c="dimmed">
                {label}
              </Text>
              <Text fw={700} size="lg">
                {value}
              </Text>
            </div>
          ))}
        </SimpleGrid>
        <Text size="sm" data-testid="bounce-sentence">
          {rateSentence(w, 'bounce', h)}
        </Text>
        <Text size="sm">{rateSentence(w, 'complaint', h)}</Text>
      </Stack>
    </Paper>
  );
}

/**
 * `/p/:projectId/health`: the project's bounce and complaint rates over 7 and 30 days against the
 * lines where providers start to worry and where Pigeon pauses bulk mail (src/projects/health.ts),
 * whether sending is paused, and (OWNER, ADMIN) resuming it.
 */
export function SenderHealthPage() {
  const { project, can } = useProject();
  const qc = useQueryClient();
  const security = useProjectSecurity(project.id);
  const [confirming, confirm] = useDisclosure();
  return (
    <>
      <PageHeader
        title="Sender health"
        description="Mailbox providers judge a sender by how many of its mails bounce and how many recipients mark them as spam. Pigeon watches both rates and pauses campaigns before they harm your reputation."
      />
      <QueryState query={security}>
        {({ senderHealth: h }) => (
          <Stack gap="lg">
            <Alert
              color={h.paused || h.level === 'critical' ? 'red' : h.level === 'warning' ? 'yellow' : 'teal'}
              variant="light"
              icon={h.paused ? <IconAlertTriangle size={18} /> : <IconHeartbeat size={18} />}
              title={h.paused ? 'Sending is paused' : 'Sending is not paused'}
              data-testid="health-summary"
              data-paused={String(h.paused)}
            >
              <Stack gap="xs">
                <Text size="sm">{summarySentence(h)}</Text>
                {h.acknowledgedAt && (
                  <Text size="sm">Sending was last resumed on {formatDateTime(h.acknowledgedAt)}.</Text>
                )}
                {h.paused && can.editProject && (
                  <Group>
                    <Button color="red" variant="filled" size="xs" onClick={confirm.open}>
                      Resume sending
                    </Button>
                  </Group>
                )}
                {h.paused && !can.editProject && (
                  <Text size="sm">An owner or admin of this project can resume sending.</Text>
                )}
              </Stack>
            </Alert>
            <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
              <WindowCard w={h.last7Days} h={h} />
              <WindowCard w={h.last30Days} h={h} />
            </SimpleGrid>
            <Text size="sm" c="dimmed">
              Counted: mails handed to the mail server in the window, of every kind. With fewer than {h.minimumSent} of
              them a window stays healthy whatever its rates. Transactional mail is never paused. Addresses that bounced
              for good or complained are on the Suppressions list, so campaigns skip them.
            </Text>
          </Stack>
        )}
      </QueryState>
      <ConfirmDialog
        opened={confirming}
        onClose={confirm.close}
        title="Resume campaigns and marketing mail?"
        confirmLabel="Resume sending"
        danger
        onConfirm={async () => {
          const fresh = await unwrap(
            api.POST('/projects/{id}/security/acknowledge', { params: { path: { id: project.id } } }),
          );
          qc.setQueryData(projectKeys.security(project.id), fresh);
        }}
      >
        <Text size="sm">
          Do this once the cause is dealt with (a bad list removed, a broken form fixed). From now on only mail sent
          after this moment counts: if it reaches the critical line again, sending pauses again.
        </Text>
      </ConfirmDialog>
    </>
  );
}
