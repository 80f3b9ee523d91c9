import { Anchor, Button, Center, Group, Loader, MultiSelect, Stack, Text, Tooltip } from '@mantine/core';
import { IconListDetails } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { DataTable, type Column } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { ContentSkeleton } from '../../components/Loading';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { formatDateTime, formatRelative } from '../../lib/format';
import { useProject } from '../projects/ProjectContext';
import { useActivityFeed, useActivityTypes, type ActivityItem, type ActivityType } from './api';

const TYPES: Record<ActivityType, { label: string; tone: Tone }> = {
  'email.sent': { label: 'Sent', tone: 'neutral' },
  'email.delivered': { label: 'Delivered', tone: 'success' },
  'email.opened': { label: 'Opened', tone: 'success' },
  'email.clicked': { label: 'Clicked', tone: 'success' },
  'email.bounced': { label: 'Bounced', tone: 'danger' },
  'email.complained': { label: 'Complaint', tone: 'danger' },
  'email.received': { label: 'Received', tone: 'neutral' },
  event: { label: 'Event', tone: 'warning' },
};

/** What the item is about: the email's subject, or the event's name. */
function details(item: ActivityItem): string {
  if (item.email) return item.email.subject ?? '(no subject)';
  if (item.event) return item.event.name ?? '(unnamed event)';
  return '';
}

/**
 * Calls `onVisible` whenever the returned element scrolls into view: the feed's next page loads as its
 * end comes near, without a click.
 */
function useOnVisible(onVisible: () => void) {
  const ref = useRef<HTMLDivElement>(null);
  const latest = useRef(onVisible);
  // The newest callback, for the observer made once per element; written after render, as refs must be.
  useEffect(() => {
    latest.current = onVisible;
  });
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) latest.current();
      },
      { rootMargin: '200px' },
    );
    io.observe(el);
    return () => io.disconnect();
  });
  return ref;
}

/** `/p/:projectId/activity`: every email and event of the project, newest first, filtered by type, scrolling on. */
export function ActivityPage() {
  const { project } = useProject();
  const [types, setTypes] = useState<ActivityType[]>([]);
  const typeList = useActivityTypes(project.id);
  const feed = useActivityFeed(project.id, types);
  const loadMore = () => {
    if (feed.hasNextPage && !feed.isFetchingNextPage && !feed.isError) void feed.fetchNextPage();
  };
  const sentinel = useOnVisible(loadMore);

  const columns: Column<ActivityItem>[] = [
    {
      key: 'type',
      header: 'Type',
      width: 130,
      render: (i) => (
        <StatusBadge tone={TYPES[i.type].tone} data-type={i.type}>
          {TYPES[i.type].label}
        </StatusBadge>
      ),
    },
    {
      key: 'details',
      header: 'Details',
      render: (i) => (
        <Text size="sm" lineClamp={2} style={{ wordBreak: 'break-word' }}>
          {details(i)}
        </Text>
      ),
    },
    {
      key: 'contact',
      header: 'Contact',
      render: (i) =>
        i.contact?.id ? (
          <Anchor
            component={Link}
            to={`/p/${project.id}/contacts/${i.contact.id}`}
            size="sm"
            style={{ wordBreak: 'break-all' }}
          >
            {i.contact.email}
          </Anchor>
        ) : (
          <Text size="sm" c="dimmed">
            {i.contact?.email ?? '—'}
          </Text>
        ),
    },
    {
      key: 'when',
      header: 'When',
      width: 150,
      render: (i) => (
        <Tooltip label={formatDateTime(i.occurredAt)}>
          <Text size="sm" c="dimmed" component="time" dateTime={i.occurredAt}>
            {formatRelative(i.occurredAt)}
          </Text>
        </Tooltip>
      ),
    },
  ];

  const items = feed.data?.pages.flatMap((p) => p.data) ?? [];
  const total = feed.data?.pages[0]?.total ?? 0;
  return (
    <>
      <PageHeader
        title="Activity"
        description="Every email Pigeon sent, delivered, saw opened or clicked, every bounce and complaint, and every event your app tracked, newest first."
      />
      <Stack gap="md">
        <MultiSelect
          label="Types"
          placeholder={types.length ? undefined : 'All types'}
          data={(typeList.data ?? []).map((t) => ({ value: t, label: TYPES[t].label }))}
          value={types}
          onChange={(v) => setTypes(v as ActivityType[])}
          clearable
          maw={520}
          data-testid="activity-type-filter"
        />
        {feed.isPending ? (
          <ContentSkeleton rows={6} />
        ) : !feed.data ? (
          <ErrorAlert error={feed.error} onRetry={() => void feed.refetch()} />
        ) : items.length === 0 ? (
          <EmptyState
            icon={<IconListDetails size={28} />}
            title={types.length ? 'Nothing of these types yet' : 'No activity yet'}
            description={
              types.length
                ? 'Choose other types, or clear the filter to see everything.'
                : 'Send an email with POST /v1/send or track an event with POST /v1/track: each send, delivery, open, click and event shows up here.'
            }
            action={
              types.length ? (
                <Button variant="default" onClick={() => setTypes([])}>
                  Clear filter
                </Button>
              ) : undefined
            }
          />
        ) : (
          <Stack gap="sm">
            <Text size="sm" c="dimmed" data-testid="activity-count">
              Showing {items.length} of {total} item{total === 1 ? '' : 's'}
            </Text>
            <DataTable
              caption="Activity, newest first"
              columns={columns}
              rows={items}
              rowKey={(i) => i.id}
              rowLabel={(i) => i.type}
              minWidth={720}
            />
            <div ref={sentinel} data-testid="feed-end" />
            {feed.isFetchingNextPage && (
              <Center>
                <Loader size="sm" role="status" aria-label="Loading more" />
              </Center>
            )}
            {feed.isFetchNextPageError && (
              <ErrorAlert error={feed.error} title="The next page failed" onRetry={() => void feed.fetchNextPage()} />
            )}
            {feed.hasNextPage && !feed.isFetchingNextPage && !feed.isFetchNextPageError && (
              <Group justify="center">
                <Button variant="default" onClick={loadMore}>
                  Load more
                </Button>
              </Group>
            )}
            {!feed.hasNextPage && items.length > 0 && (
              <Text size="sm" c="dimmed" ta="center">
                That is everything.
              </Text>
            )}
          </Stack>
        )}
      </Stack>
    </>
  );
}
