import { Anchor, Button, Group, NativeSelect, Pagination, Stack, Tabs, Text, TextInput } from '@mantine/core';
import { IconPlus, IconSearch, IconSend } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { useProject } from '../projects/ProjectContext';
import { useDebounced } from '../segments/api';
import { STATUSES, useCampaigns, type Campaign, type ListParams } from './api';
import { CampaignStatusBadge, inLocalZone, STATUS_LABELS } from './status';

const SORTS = [
  { value: 'createdAt:desc', label: 'Newest first' },
  { value: 'createdAt:asc', label: 'Oldest first' },
  { value: 'updatedAt:desc', label: 'Recently changed' },
  { value: 'name:asc', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
];

/** `/p/:projectId/campaigns`: campaigns by status tab, searched by name/subject/sender, sorted, 20 a page. */
export function CampaignsPage() {
  const { project } = useProject();
  const [status, setStatus] = useState<ListParams['status']>('ALL');
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState('createdAt:desc');
  const [page, setPage] = useState(1);
  const debounced = useDebounced(search, 300);
  const [by, dir] = sort.split(':') as [ListParams['sort'], ListParams['dir']];
  const query = useCampaigns(project.id, { status, search: debounced, sort: by, dir, page });
  const base = `/p/${project.id}/campaigns`;
  const add = (
    <Button component={Link} to={`${base}/new`} leftSection={<IconPlus size={16} />}>
      New campaign
    </Button>
  );
  const filtered = status !== 'ALL' || debounced.trim() !== '';
  return (
    <>
      <PageHeader title="Campaigns" description="One email to a whole audience, now or scheduled." actions={add} />
      <Tabs
        value={status}
        onChange={(v) => {
          setStatus((v ?? 'ALL') as ListParams['status']);
          setPage(1);
        }}
      >
        <Tabs.List mb="md">
          <Tabs.Tab value="ALL">All</Tabs.Tab>
          {STATUSES.map((s) => (
            <Tabs.Tab key={s} value={s}>
              {STATUS_LABELS[s]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Group mb="md" align="flex-end">
        <TextInput
          label="Search"
          placeholder="Name, subject or sender"
          leftSection={<IconSearch size={16} />}
          w={320}
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
        />
        <NativeSelect label="Sort" data={SORTS} value={sort} onChange={(e) => setSort(e.currentTarget.value)} />
      </Group>
      <QueryState
        query={query}
        isEmpty={(d) => d.data.length === 0}
        empty={
          <EmptyState
            icon={<IconSend size={28} />}
            title={filtered ? 'No campaign matches' : 'No campaigns yet'}
            description={
              filtered
                ? 'Try another tab or search.'
                : 'Write a campaign, pick its audience, send a test, then send it now or schedule it.'
            }
            action={filtered ? undefined : add}
          />
        }
      >
        {(d) => (
          <Stack gap="sm">
            <DataTable<Campaign>
              caption="Campaigns"
              rows={d.data}
              rowKey={(c) => c.id}
              rowLabel={(c) => c.name}
              minWidth={760}
              columns={[
                {
                  key: 'name',
                  header: 'Name',
                  render: (c) => (
                    <>
                      <Anchor component={Link} to={`${base}/${c.id}`} fw={500}>
                        {c.name}
                      </Anchor>
                      <Text size="xs" c="dimmed" lineClamp={1}>
                        {c.subject}
                      </Text>
                    </>
                  ),
                },
                {
                  key: 'status',
                  header: 'Status',
                  width: 120,
                  render: (c) => <CampaignStatusBadge status={c.status} />,
                },
                {
                  key: 'recipients',
                  header: 'Recipients',
                  width: 110,
                  align: 'right',
                  render: (c) => (c.status === 'DRAFT' ? '–' : c.totalRecipients.toLocaleString()),
                },
                {
                  key: 'opens',
                  header: 'Opened',
                  width: 90,
                  align: 'right',
                  render: (c) => (c.status === 'DRAFT' ? '–' : c.openedCount.toLocaleString()),
                },
                {
                  key: 'when',
                  header: 'When',
                  width: 220,
                  render: (c) => (
                    <Text size="sm">
                      {c.sentAt
                        ? `Sent ${inLocalZone(c.sentAt)}`
                        : c.scheduledFor
                          ? `For ${inLocalZone(c.scheduledFor)}`
                          : `Created ${inLocalZone(c.createdAt)}`}
                    </Text>
                  ),
                },
              ]}
            />
            {d.totalPages > 1 && (
              <Pagination total={d.totalPages} value={page} onChange={setPage} aria-label="Campaign pages" />
            )}
          </Stack>
        )}
      </QueryState>
    </>
  );
}
