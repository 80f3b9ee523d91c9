import { Anchor, Group, Paper, SegmentedControl, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useContactCounts, useEmailTotals, type Days } from './api';

const number = new Intl.NumberFormat();

function Figure({ label, value, id }: { label: string; value: number | undefined; id: string }) {
  return (
    <Paper p="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      {value === undefined ? (
        <Skeleton height={30} mt={4} width={60} />
      ) : (
        <Text size="xl" fw={700} data-testid={`figure-${id}`}>
          {number.format(value)}
        </Text>
      )}
    </Paper>
  );
}

/**
 * The overview once mail flows: sent, delivered, opened and bounced over the last 7 or 30 days (from
 * `/analytics/timeseries`), and the project's contacts and subscribed contacts (`GET /contacts`'s total).
 */
export function OverviewFigures({ projectId }: { projectId: string }) {
  const [days, setDays] = useState<Days>(30);
  const mail = useEmailTotals(projectId, days);
  const people = useContactCounts(projectId);
  const error = mail.error ?? people.error;
  return (
    <Stack gap="md" data-testid="overview-figures">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={2} size="h4">
          Your mail
        </Title>
        <SegmentedControl
          aria-label="Period"
          value={String(days)}
          onChange={(v) => setDays(Number(v) as Days)}
          data={[
            { value: '7', label: 'Last 7 days' },
            { value: '30', label: 'Last 30 days' },
          ]}
        />
      </Group>
      {error && (
        <ErrorAlert
          error={error}
          onRetry={() => {
            void mail.refetch();
            void people.refetch();
          }}
        />
      )}
      <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }} spacing="sm">
        <Figure id="sent" label="Sent" value={mail.data?.sent} />
        <Figure id="delivered" label="Delivered" value={mail.data?.delivered} />
        <Figure id="opened" label="Opened" value={mail.data?.opened} />
        <Figure id="bounced" label="Bounced" value={mail.data?.bounced} />
        <Figure id="contacts" label="Contacts" value={people.data?.contacts} />
        <Figure id="subscribed" label="Subscribed" value={people.data?.subscribed} />
      </SimpleGrid>
      <Text size="sm" c="dimmed">
        Days are counted in UTC. Every day, by hour or by day, is on{' '}
        <Anchor component={Link} to={`/p/${projectId}/analytics`} size="sm" underline="always">
          Analytics
        </Anchor>
        .
      </Text>
    </Stack>
  );
}
