import { Alert, Group, Paper, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { PageHeader } from '../../components/PageHeader';
import { PreviewPane, usePreview } from '../../components/PreviewPane';
import { QueryState } from '../../components/QueryState';
import { useProject } from '../projects/ProjectContext';
import { useSegment } from '../segments/api';
import { campaignKeys, useCampaign, useCampaignStats, type Campaign } from './api';
import { CampaignActions } from './CampaignActions';
import { CampaignReport } from './CampaignReport';
import { ExperimentPanel } from './ExperimentPanel';
import { CampaignStatusBadge, inLocalZone } from './status';
import { sendingUntil } from './delivery';

/** `/p/:projectId/campaigns/:campaignId`: one campaign, its actions, live progress and report. */
export function CampaignPage() {
  const { project } = useProject();
  const { campaignId = '' } = useParams();
  const query = useCampaign(project.id, campaignId);
  return <QueryState query={query}>{(c) => <CampaignView projectId={project.id} campaign={c} />}</QueryState>;
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </div>
  );
}

function AudienceFact({ projectId, c }: { projectId: string; c: Campaign }) {
  const seg = useSegment(projectId, c.audienceType === 'SEGMENT' ? (c.segmentId ?? undefined) : undefined);
  if (c.audienceType === 'ALL') return <>All contacts</>;
  if (c.audienceType === 'FILTERED') return <>Contacts matching a filter</>;
  return <>Segment {seg.data?.name ?? '…'}</>;
}

/** The campaign's message as the server renders it (`POST /templates/preview`) for a sample contact. */
function MessagePreview({ projectId, campaign: c }: { projectId: string; campaign: Campaign }) {
  const [contactId, setContactId] = useState<string | null>(null);
  const preview = usePreview(projectId, { subject: c.subject, body: c.body, type: c.type, contactId });
  return (
    <Paper p="md" mt="lg" data-testid="campaign-preview">
      <Title order={2} size="h4" mb="sm">
        Message
      </Title>
      <PreviewPane projectId={projectId} preview={preview} contactId={contactId} onContactChange={setContactId} />
    </Paper>
  );
}

function CampaignView({ projectId, campaign: c }: { projectId: string; campaign: Campaign }) {
  const qc = useQueryClient();
  const sent = c.status === 'SENDING' || c.status === 'SENT' || c.status === 'CANCELLED';
  const stats = useCampaignStats(projectId, c.id, c.status === 'SENDING');
  // A change of status or progress makes the report's other reads stale too.
  useEffect(() => {
    void qc.invalidateQueries({ queryKey: campaignKeys.stats(projectId, c.id) });
    void qc.invalidateQueries({ queryKey: campaignKeys.timeline(projectId, c.id) });
    void qc.invalidateQueries({ queryKey: [...campaignKeys.all(projectId), 'emails', c.id] });
    void qc.invalidateQueries({ queryKey: [...campaignKeys.all(projectId), 'links', c.id] });
  }, [qc, projectId, c.id, c.status, c.sentCount]);
  // The audience counted at the start, an A/B test's holdout left out (it gets no mail).
  const total = c.totalRecipients;
  // Emails past the queue: handed to the mail server, failed or skipped. The counters by outcome
  // overlap (a clicked email was delivered and opened too), so they cannot be added up.
  const handedOver = stats.data ? stats.data.emails - stats.data.pendingCount : c.sentCount;
  const done = handedOver;
  return (
    <>
      <PageHeader
        title={c.name}
        description={
          <Group gap="xs" component="span">
            <CampaignStatusBadge status={c.status} />
            <Text span size="sm">
              {c.subject}
            </Text>
            {c.status === 'SENDING' && sendingUntil(c.delivery.endsAt) && (
              <Text span size="sm" fw={600} data-testid="sending-until">
                {sendingUntil(c.delivery.endsAt)}
              </Text>
            )}
          </Group>
        }
      />
      <Stack gap="md">
        {/* Below the title rather than beside it: up to five actions would squeeze a long name. */}
        <CampaignActions projectId={projectId} campaign={c} handedOver={handedOver} />
        {c.statusReason && (
          <Alert
            color="red"
            variant="light"
            icon={<IconAlertTriangle size={18} />}
            title={c.status === 'CANCELLED' ? 'Cancelled by Pigeon' : 'Note'}
          >
            {c.statusReason}
          </Alert>
        )}
        <Paper p="md">
          <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
            <Fact label="From">{c.fromName ? `${c.fromName} <${c.from}>` : c.from}</Fact>
            <Fact label="Reply-to">{c.replyTo ?? '–'}</Fact>
            <Fact label="Audience">
              <AudienceFact projectId={projectId} c={c} />
            </Fact>
            <Fact label={c.sentAt ? 'Sent' : 'Scheduled for'}>
              <span data-testid="campaign-when">
                {c.sentAt ? inLocalZone(c.sentAt) : c.scheduledFor ? inLocalZone(c.scheduledFor) : 'Not scheduled'}
              </span>
            </Fact>
          </SimpleGrid>
        </Paper>
        {c.status === 'SENDING' && (
          <Paper p="md">
            <Group justify="space-between" mb={6}>
              <Text size="sm" fw={500}>
                {stats.data?.experiment?.phase === 'waiting'
                  ? 'Test mail sent; the rest waits for the winner'
                  : 'Sending'}
              </Text>
              <Text size="sm" c="dimmed" data-testid="send-progress">
                {done.toLocaleString()} / {total.toLocaleString()}
              </Text>
            </Group>
            <Progress
              value={total ? (done / total) * 100 : 0}
              striped
              animated
              aria-label={`Sent ${done} of ${total}`}
            />
          </Paper>
        )}
        {sent && stats.data?.experiment && <ExperimentPanel projectId={projectId} campaign={c} stats={stats.data} />}
      </Stack>
      {sent && stats.data && <CampaignReport projectId={projectId} campaign={c} stats={stats.data} />}
      <MessagePreview projectId={projectId} campaign={c} />
    </>
  );
}
