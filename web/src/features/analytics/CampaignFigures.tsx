import { Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { QueryState } from '../../components/QueryState';
import { useCampaignTotals, type CampaignTotals } from './api';
import { MACHINES_LEFT_OUT } from './human';

const number = new Intl.NumberFormat();

/** One card: the figure, and under it what it is out of; `people` the human figure beside the raw one. */
function Card({
  id,
  label,
  value,
  note,
  people,
}: {
  id: string;
  label: string;
  value: string;
  note: string;
  people?: { value: string; note: string };
}) {
  return (
    <Paper p="md" withBorder data-testid={`campaign-figure-${id}`}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      {people ? (
        <>
          <Text size="xl" fw={700} data-human={people.value}>
            {people.value}{' '}
            <Text span size="sm" fw={500} c="dimmed">
              by people
            </Text>
          </Text>
          <Text size="xs" c="dimmed">
            {people.note}
          </Text>
          <Text size="xs" c="dimmed" data-raw={value}>
            {value} with machines ({note})
          </Text>
        </>
      ) : (
        <>
          <Text size="xl" fw={700}>
            {value}
          </Text>
          <Text size="xs" c="dimmed">
            {note}
          </Text>
        </>
      )}
    </Paper>
  );
}

function Cards({ t }: { t: CampaignTotals }) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="sm">
      <Card
        id="sent"
        label="Campaign emails sent"
        value={number.format(t.sent)}
        note={`${number.format(t.campaigns)} ${t.campaigns === 1 ? 'campaign' : 'campaigns'}`}
      />
      <Card
        id="opened"
        label="Opened"
        value={`${t.openRate} %`}
        note={`${number.format(t.opened)} emails`}
        people={{ value: `${t.humanOpenRate} %`, note: `${number.format(t.humanOpened)} emails` }}
      />
      <Card
        id="clicked"
        label="Clicked"
        value={`${t.clickRate} %`}
        note={`${number.format(t.clicked)} emails`}
        people={{ value: `${t.humanClickRate} %`, note: `${number.format(t.humanClicked)} emails` }}
      />
      <Card
        id="bounced"
        label="Bounced"
        value={`${t.bounceRate} %`}
        note={`${number.format(t.bounced)} emails, ${t.complaintRate} % complaints`}
      />
    </SimpleGrid>
  );
}

/**
 * Campaign mail of the last 30 days (`GET /analytics/campaign-stats`): sent, and the open and click
 * rates by people beside the raw ones (rates over sent).
 */
export function CampaignFigures({ projectId }: { projectId: string }) {
  const totals = useCampaignTotals(projectId);
  return (
    <Stack gap="sm" data-testid="campaign-figures">
      <Title order={2} size="h4">
        Campaigns, last 30 days
      </Title>
      <QueryState
        query={totals}
        isEmpty={(t) => t.sent === 0}
        empty={
          <Text size="sm" c="dimmed">
            No campaign mail in the last 30 days.
          </Text>
        }
      >
        {(t) => (
          <>
            <Cards t={t} />
            <Text size="xs" c="dimmed">
              &quot;By people&quot; leaves out {MACHINES_LEFT_OUT}; rates are over emails sent.
            </Text>
          </>
        )}
      </QueryState>
    </Stack>
  );
}
