import { Button, Group, NativeSelect, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconMailOff } from '@tabler/icons-react';
import { lazy, Suspense, useState } from 'react';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ContentSkeleton } from '../../components/Loading';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { MACHINES_LEFT_OUT } from '../analytics/human';
import type { EmailStatus } from '../emails/api';
import { STATUSES } from '../emails/status';
import { LanguagesTable } from './LanguagesTable';
import { useCampaignEmails, useCampaignTimeline, type Campaign, type CampaignEmail, type CampaignStats } from './api';

// The chart is drawn by its own chunk: the report's numbers show before it loads.
const TimelineChart = lazy(() => import('./TimelineChart').then((m) => ({ default: m.TimelineChart })));
// The click map too (a DOM parse of the mail, a frame): it sits below the figures.
const LinksSection = lazy(() => import('./LinksSection').then((m) => ({ default: m.LinksSection })));

const pct = (n: number) => `${n.toFixed(n % 1 === 0 ? 0 : 2)} %`;

/**
 * Counts and rates of a campaign's emails (`GET /campaigns/:id/stats`). "Sent" is what the mail server
 * accepted; "Delivered" only what the feedback loop confirmed, and when none came (a plain SMTP relay
 * reports nothing) the grid says so instead of showing 0 %.
 */
export function StatsGrid({ stats }: { stats: CampaignStats }) {
  const rate = (n: number) => (stats.emails ? pct((n / stats.emails) * 100) : '–');
  const reported = stats.deliveryReports;
  const tiles = [
    {
      label: 'Sent',
      value: stats.sentCount,
      shown: stats.sentCount.toLocaleString(),
      rate: 'accepted by the mail server',
    },
    {
      label: 'Delivered',
      value: stats.confirmedDeliveredCount,
      shown: reported ? stats.confirmedDeliveredCount.toLocaleString() : 'Not reported',
      rate: reported ? `${pct(stats.confirmedDeliveryRate)} of sent` : 'no delivery reports',
    },
    {
      label: 'Opened',
      value: stats.openedCount,
      rate: `${pct(stats.openRate)} · by people ${stats.humanOpenedCount.toLocaleString()} (${pct(stats.humanOpenRate)})`,
    },
    {
      label: 'Clicked',
      value: stats.clickedCount,
      rate: `${pct(stats.clickRate)} · by people ${stats.humanClickedCount.toLocaleString()} (${pct(stats.humanClickRate)})`,
    },
    { label: 'Bounced', value: stats.bouncedCount, rate: pct(stats.bounceRate) },
    { label: 'Complained', value: stats.complainedCount, rate: rate(stats.complainedCount) },
  ].map((t) => ({ shown: t.value.toLocaleString(), ...t }));
  return (
    <Stack gap="xs">
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} data-testid="campaign-stats">
        {tiles.map((t) => (
          <Paper key={t.label} p="sm" withBorder data-stat={t.label.toLowerCase()} data-value={t.value}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              {t.label}
            </Text>
            <Text fz={t.shown === t.value.toLocaleString() ? 24 : 18} lh="36px" fw={700}>
              {t.shown}
            </Text>
            <Text size="xs" c="dimmed">
              {t.rate}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
      {stats.openedCount > stats.humanOpenedCount && (
        <Text size="sm" c="dimmed" data-testid="machine-note">
          {(stats.openedCount - stats.humanOpenedCount).toLocaleString()} of the opened emails{' '}
          {stats.openedCount - stats.humanOpenedCount === 1 ? 'was' : 'were'} opened only by machines (
          {MACHINES_LEFT_OUT}), not by people: the figures &ldquo;by people&rdquo; leave them out.
        </Text>
      )}
      {!reported && stats.sentCount > 0 && (
        <Text size="sm" c="dimmed" data-testid="delivery-note">
          Delivery is not reported for this campaign: the mail server accepted {stats.sentCount.toLocaleString()}{' '}
          {stats.sentCount === 1 ? 'email' : 'emails'}, and what happened next is known only from delivery feedback
          (Amazon SES notifications). Bounces and complaints still show when they come back.
        </Text>
      )}
    </Stack>
  );
}

/** An email status in words (emails/status.tsx); DELIVERED reads "Accepted" when no delivery report came. */
const statusLabel = (s: EmailStatus, reported: boolean) =>
  s === 'DELIVERED' && !reported ? 'Accepted' : STATUSES[s].label;

const STATUS_FILTER: Array<EmailStatus | ''> = [
  '',
  'PENDING',
  'SENT',
  'DELIVERED',
  'OPENED',
  'CLICKED',
  'BOUNCED',
  'COMPLAINED',
  'FAILED',
  'SUPPRESSED',
];
const at = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : '–';

/**
 * The recipients of a send with each email's status in words (`GET /campaigns/:id/emails`, 50 a page).
 * Without delivery reports, a mail the relay accepted is stored DELIVERED: it reads "Accepted", as the
 * report's Delivered figure says "Not reported".
 */
function RecipientsTable({
  projectId,
  campaignId,
  reported,
  variants,
}: {
  projectId: string;
  campaignId: string;
  reported: boolean;
  /** An A/B campaign: a column says which variant each recipient got. */
  variants: boolean;
}) {
  const [status, setStatus] = useState('');
  const [cursors, setCursors] = useState<string[]>(['']);
  const query = useCampaignEmails(projectId, campaignId, status, cursors[cursors.length - 1]);
  return (
    <Stack gap="sm">
      <NativeSelect
        label="Recipient status"
        w={220}
        value={status}
        onChange={(e) => {
          setStatus(e.currentTarget.value);
          setCursors(['']);
        }}
        data={STATUS_FILTER.map((s) => ({ value: s, label: s ? statusLabel(s, reported) : 'Any' }))}
      />
      <QueryState
        query={query}
        isEmpty={(d) => d.data.length === 0}
        empty={
          <EmptyState
            icon={<IconMailOff size={28} />}
            title="No recipients here"
            description={
              status ? 'No email has this status: choose another.' : 'Emails appear here once the campaign is sent.'
            }
          />
        }
      >
        {(d) => (
          <>
            {cursors.length === 1 && (
              <Text size="sm" c="dimmed">
                {d.total.toLocaleString()} recipients
              </Text>
            )}
            <DataTable<CampaignEmail>
              caption="Recipients"
              rows={d.data}
              rowKey={(e) => e.id}
              rowLabel={(e) => e.to}
              minWidth={820}
              columns={[
                { key: 'to', header: 'To', render: (e) => e.to },
                ...(variants
                  ? [
                      {
                        key: 'variant',
                        header: 'Variant',
                        width: 90,
                        render: (e: (typeof d.data)[number]) => e.variant ?? '–',
                      },
                    ]
                  : []),
                {
                  key: 'status',
                  header: 'Status',
                  width: 130,
                  render: (e) => (
                    <StatusBadge tone={STATUSES[e.status].tone} data-status={e.status}>
                      {statusLabel(e.status, reported)}
                    </StatusBadge>
                  ),
                },
                { key: 'sent', header: 'Sent', width: 180, render: (e) => at(e.sentAt) },
                { key: 'opened', header: 'Opened', width: 180, render: (e) => at(e.openedAt) },
                { key: 'clicked', header: 'Clicked', width: 180, render: (e) => at(e.clickedAt) },
                {
                  key: 'error',
                  header: 'Error',
                  render: (e) =>
                    e.error ? (
                      <Text size="xs" c="red">
                        {e.error}
                      </Text>
                    ) : (
                      ''
                    ),
                },
              ]}
            />
            <Group>
              {cursors.length > 1 && (
                <Button variant="default" size="xs" onClick={() => setCursors(cursors.slice(0, -1))}>
                  Previous
                </Button>
              )}
              {d.hasMore && d.cursor && (
                <Button variant="default" size="xs" onClick={() => setCursors([...cursors, d.cursor!])}>
                  Next
                </Button>
              )}
            </Group>
          </>
        )}
      </QueryState>
    </Stack>
  );
}

/** The report of a sent (or sending, or cancelled) campaign: numbers, hourly chart, links, recipients. */
export function CampaignReport({
  projectId,
  campaign,
  stats,
}: {
  projectId: string;
  campaign: Campaign;
  stats: CampaignStats;
}) {
  const campaignId = campaign.id;
  const timeline = useCampaignTimeline(projectId, campaignId);
  return (
    <Stack gap="md" mt="lg">
      <Title order={2} size="h4">
        Report
      </Title>
      <StatsGrid stats={stats} />
      {stats.languages && <LanguagesTable rows={stats.languages} reported={stats.deliveryReports} />}
      <Paper p="md">
        <Title order={3} size="h5" mb="sm">
          Activity per hour
        </Title>
        <QueryState
          query={timeline}
          isEmpty={(t) => t.data.length === 0}
          empty={
            <Text size="sm" c="dimmed">
              No activity yet.
            </Text>
          }
        >
          {(t) => (
            <Suspense fallback={<ContentSkeleton rows={3} />}>
              <TimelineChart data={t.data} />
            </Suspense>
          )}
        </QueryState>
      </Paper>
      <Suspense fallback={<ContentSkeleton rows={4} />}>
        <LinksSection projectId={projectId} campaign={campaign} />
      </Suspense>
      <Paper p="md">
        <Title order={3} size="h5" mb="sm">
          Recipients
        </Title>
        <RecipientsTable
          projectId={projectId}
          campaignId={campaignId}
          reported={stats.deliveryReports}
          variants={!!stats.variants}
        />
      </Paper>
    </Stack>
  );
}
