import {
  Anchor,
  Group,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Title,
  useMatches,
} from '@mantine/core';
import { IconChartLine, IconSend, IconBolt } from '@tabler/icons-react';
import { lazy, Suspense, useState } from 'react';
import { Link } from 'react-router';
import { DataTable, type Column } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { formatDateTime } from '../../lib/format';
import { useProject } from '../projects/ProjectContext';
import { CampaignFigures } from './CampaignFigures';
import { MACHINES_LEFT_OUT, percent } from './human';
import {
  useTimeseries,
  useTopCampaigns,
  useTopEvents,
  type Interval,
  type Timeseries,
  type TopCampaign,
  type TopEvent,
} from './api';

// uPlot is only needed here, and only once there is data to draw.
const TimeseriesChart = lazy(async () => ({ default: (await import('./TimeseriesChart')).TimeseriesChart }));

const number = new Intl.NumberFormat();
const TOTALS = [
  { key: 'sent', label: 'Sent' },
  { key: 'delivered', label: 'Delivered' },
  { key: 'opened', label: 'Opened', human: 'humanOpened' },
  { key: 'clicked', label: 'Clicked', human: 'humanClicked' },
  { key: 'bounced', label: 'Bounced' },
] as const;

/** The period's totals; opens and clicks with, under them, the emails a person opened or clicked. */
function Totals({ series }: { series: Timeseries }) {
  const total = (k: keyof Timeseries['data'][number]) =>
    series.data.reduce((n, p) => n + (typeof p[k] === 'number' ? p[k] : 0), 0);
  const sent = total('sent');
  return (
    <Stack gap={4}>
      <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="sm">
        {TOTALS.map((t) => (
          <Stack key={t.key} gap={0}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              {t.label}
            </Text>
            <Text size="xl" fw={700} data-testid={`total-${t.key}`}>
              {number.format(total(t.key))}
            </Text>
            {'human' in t && (
              <Text size="xs" c="dimmed" data-testid={`total-${t.human}`} data-value={total(t.human)}>
                {number.format(total(t.human))} by people ({percent(total(t.human), sent)} of sent)
              </Text>
            )}
          </Stack>
        ))}
      </SimpleGrid>
      <Text size="xs" c="dimmed">
        Opened and Clicked count every email opened or clicked, machines included; &quot;by people&quot; leaves out{' '}
        {MACHINES_LEFT_OUT}.
      </Text>
    </Stack>
  );
}

function ChartCard({ projectId }: { projectId: string }) {
  const [interval, setInterval] = useState<Interval>('day');
  const series = useTimeseries(projectId, interval);
  // On a phone the smaller size keeps both choices inside the card (390 px).
  const controlSize = useMatches({ base: 'xs', sm: 'sm' });
  return (
    <Paper p="lg">
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Title order={2} size="h4">
            Emails over time
          </Title>
          <SegmentedControl
            aria-label="Interval"
            size={controlSize}
            value={interval}
            onChange={(v) => setInterval(v as Interval)}
            data={[
              { value: 'day', label: 'Last 30 days, by day' },
              { value: 'hour', label: 'Last 48 hours, by hour' },
            ]}
          />
        </Group>
        <QueryState
          query={series}
          isEmpty={(s) => s.data.every((p) => p.sent + p.delivered + p.opened + p.clicked + p.bounced === 0)}
          empty={
            <EmptyState
              icon={<IconChartLine size={28} />}
              title="No email in this period"
              description="Send with POST /v1/send, a campaign or a workflow: sends, deliveries, opens, clicks and bounces are counted here."
            />
          }
        >
          {(s) => (
            <Stack gap="md">
              <Totals series={s} />
              <Suspense fallback={<Skeleton height={330} />}>
                <TimeseriesChart series={s} />
              </Suspense>
            </Stack>
          )}
        </QueryState>
      </Stack>
    </Paper>
  );
}

/** A campaign's raw count and rate, the people's rate under it. */
function Rates({ raw, people }: { raw: string; people: number }) {
  return (
    <Stack gap={0} align="flex-end">
      <Text size="sm">{raw}</Text>
      <Text size="xs" c="dimmed" data-human-rate={people}>
        {people} % by people
      </Text>
    </Stack>
  );
}

function TopCampaigns({ projectId }: { projectId: string }) {
  const top = useTopCampaigns(projectId);
  const columns: Column<TopCampaign>[] = [
    {
      key: 'name',
      header: 'Campaign',
      render: (c) => (
        <Stack gap={0}>
          <Text size="sm" fw={600}>
            {c.name}
          </Text>
          <Text size="xs" c="dimmed" lineClamp={1}>
            {c.subject}
          </Text>
        </Stack>
      ),
    },
    { key: 'sent', header: 'Sent', align: 'right', width: 90, render: (c) => number.format(c.sent) },
    {
      key: 'open',
      header: 'Opened',
      align: 'right',
      width: 130,
      render: (c) => <Rates raw={`${number.format(c.opened)} (${c.openRate} %)`} people={c.humanOpenRate} />,
    },
    {
      key: 'click',
      header: 'Clicked',
      align: 'right',
      width: 130,
      render: (c) => <Rates raw={`${number.format(c.clicked)} (${c.clickRate} %)`} people={c.humanClickRate} />,
    },
  ];
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        Top campaigns
      </Title>
      <QueryState
        query={top}
        isEmpty={(d) => d.data.length === 0}
        empty={
          <EmptyState
            icon={<IconSend size={28} />}
            title="No campaign sent in the last 30 days"
            description={
              <>
                Send a campaign from{' '}
                <Anchor component={Link} to={`/p/${projectId}/campaigns`}>
                  Campaigns
                </Anchor>
                : the ones opened most are ranked here.
              </>
            }
          />
        }
      >
        {(d) => (
          <DataTable
            caption="Campaigns with the most opens in the last 30 days"
            columns={columns}
            rows={d.data}
            rowKey={(c) => c.id}
            minWidth={460}
          />
        )}
      </QueryState>
    </Stack>
  );
}

function TopEvents({ projectId }: { projectId: string }) {
  const top = useTopEvents(projectId);
  const columns: Column<TopEvent>[] = [
    {
      key: 'name',
      header: 'Event',
      render: (e) => (
        <Text size="sm" fw={600} style={{ wordBreak: 'break-all' }}>
          {e.name}
        </Text>
      ),
    },
    { key: 'count', header: 'Count', align: 'right', width: 80, render: (e) => number.format(e.count) },
    { key: 'contacts', header: 'Contacts', align: 'right', width: 90, render: (e) => number.format(e.contacts) },
    {
      key: 'last',
      header: 'Last seen',
      width: 150,
      render: (e) => (
        <Text size="sm" c="dimmed">
          {formatDateTime(e.lastSeen)}
        </Text>
      ),
    },
  ];
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        Top events
      </Title>
      <QueryState
        query={top}
        isEmpty={(d) => d.data.length === 0}
        empty={
          <EmptyState
            icon={<IconBolt size={28} />}
            title="No event tracked in the last 30 days"
            description="Track what your users do with POST /v1/track and the public key; the most frequent events are ranked here."
          />
        }
      >
        {(d) => (
          <DataTable
            caption="Events tracked most in the last 30 days"
            columns={columns}
            rows={d.data}
            rowKey={(e) => e.name}
            rowLabel={(e) => e.name}
            minWidth={420}
          />
        )}
      </QueryState>
    </Stack>
  );
}

/** `/p/:projectId/analytics`: emails over time (day or hour), campaign figures, and the top campaigns and events; opens and clicks by people beside the raw ones. */
export function AnalyticsPage() {
  const { project } = useProject();
  return (
    <>
      <PageHeader
        title="Analytics"
        description="How your mail does: sends, deliveries, opens, clicks and bounces over time, in UTC; opens and clicks by people beside the raw counts."
      />
      <Stack gap="xl">
        <ChartCard projectId={project.id} />
        <CampaignFigures projectId={project.id} />
        <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
          <TopCampaigns projectId={project.id} />
          <TopEvents projectId={project.id} />
        </SimpleGrid>
      </Stack>
    </>
  );
}
