import { Anchor, Button, Group, Select, SimpleGrid, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { IconHistory, IconLock } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { DataTable, type Column } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ContentSkeleton } from '../../components/Loading';
import { formatDateTime, formatRelative } from '../../lib/format';
import { needsRole } from '../projects/permissions';
import { useProject } from '../projects/ProjectContext';
import { useMembers } from '../settings/api';
import { useAuditLog, type AuditEntry, type AuditFilters } from './api';
import { ACTION_CHOICES, actionLabel, actorLabel, targetPath, valueText } from './labels';

const NO_FILTERS: AuditFilters = { action: '', actor: '', from: '', to: '' };

/** The fields an entry changed, before → after, behind a button that says how many. */
function Changes({ entry }: { entry: AuditEntry }) {
  const [open, setOpen] = useState(false);
  const fields = Object.entries(entry.changes ?? {});
  if (!fields.length)
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  return (
    <Stack gap={4}>
      <Button
        variant="default"
        size="compact-sm"
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        style={{ alignSelf: 'flex-start' }}
      >
        {open ? 'Hide changes' : `Show ${fields.length} change${fields.length === 1 ? '' : 's'}`}
      </Button>
      {open && (
        <Table withRowBorders={false} verticalSpacing={2} fz="sm" data-testid="audit-changes">
          <Table.Tbody>
            {fields.map(([field, [before, after]]) => (
              <Table.Tr key={field}>
                <Table.Th scope="row" fw={500} style={{ whiteSpace: 'nowrap' }}>
                  {field}
                </Table.Th>
                <Table.Td style={{ wordBreak: 'break-word' }}>
                  <Text span size="sm" c="dimmed">
                    {valueText(before)}
                  </Text>{' '}
                  →{' '}
                  <Text span size="sm">
                    {valueText(after)}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

/** `/p/:projectId/settings/audit`: who changed what and when, newest first, with filters (OWNER, ADMIN). */
export function AuditLogPage() {
  const { can } = useProject();
  // The server answers a member 403; say why instead of asking.
  if (can.role === 'MEMBER')
    return (
      <EmptyState
        icon={<IconLock size={28} />}
        title="The audit log is for owners and admins"
        description={`${needsRole('owners and admins')}: ask one of them if you need to know who changed something.`}
      />
    );
  return <AuditLog />;
}

/** The log itself, its filters and its pages. */
function AuditLog() {
  const { project } = useProject();
  const [filters, setFilters] = useState<AuditFilters>(NO_FILTERS);
  const members = useMembers(project.id);
  const log = useAuditLog(project.id, filters);
  const set = (k: keyof AuditFilters) => (v: string | null) => setFilters((f) => ({ ...f, [k]: v ?? '' }));
  const filtered = Object.values(filters).some(Boolean);

  const columns: Column<AuditEntry>[] = [
    {
      key: 'when',
      header: 'When',
      width: 130,
      render: (e) => (
        <Tooltip label={formatDateTime(e.at)}>
          <Text size="sm" c="dimmed" component="time" dateTime={e.at}>
            {formatRelative(e.at)}
          </Text>
        </Tooltip>
      ),
    },
    {
      key: 'actor',
      header: 'Who',
      render: (e) => (
        <Stack gap={0}>
          <Text size="sm" style={{ wordBreak: 'break-all' }}>
            {actorLabel(e)}
          </Text>
          {e.ip && (
            <Text size="xs" c="dimmed">
              from {e.ip}
            </Text>
          )}
        </Stack>
      ),
    },
    {
      key: 'action',
      header: 'What',
      render: (e) => {
        const to = targetPath(project.id, e);
        const label = actionLabel(e.action);
        return (
          <Stack gap={0}>
            {to ? (
              <Anchor component={Link} to={to} size="sm">
                {label}
              </Anchor>
            ) : (
              <Text size="sm">{label}</Text>
            )}
            <Text size="xs" c="dimmed" ff="monospace">
              {e.action}
            </Text>
          </Stack>
        );
      },
    },
    { key: 'changes', header: 'Changes', render: (e) => <Changes entry={e} /> },
  ];

  const entries = log.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        Every change made to this project through the dashboard or the API: who made it, from where, and what changed.
        Secrets are never recorded. Entries cannot be edited or deleted; they are kept for the time the instance&apos;s
        retention setting says (a year unless changed).
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
        <Select
          label="What changed"
          placeholder="Everything"
          data={ACTION_CHOICES}
          value={filters.action || null}
          onChange={set('action')}
          clearable
          searchable
        />
        <Select
          label="Who"
          placeholder="Anyone"
          data={[
            { value: 'type:user', label: 'Any member' },
            { value: 'type:key', label: 'Any API key' },
            ...(members.data ?? []).map((m) => ({ value: m.userId, label: m.email })),
          ]}
          value={filters.actor || null}
          onChange={set('actor')}
          clearable
          searchable
        />
        <TextInput type="date" label="From" value={filters.from} onChange={(e) => set('from')(e.currentTarget.value)} />
        <TextInput type="date" label="To" value={filters.to} onChange={(e) => set('to')(e.currentTarget.value)} />
      </SimpleGrid>
      {log.isPending ? (
        <ContentSkeleton rows={6} />
      ) : !log.data ? (
        <ErrorAlert error={log.error} onRetry={() => void log.refetch()} />
      ) : entries.length === 0 ? (
        <EmptyState
          icon={<IconHistory size={28} />}
          title={filtered ? 'No change matches these filters' : 'No changes recorded yet'}
          description={
            filtered
              ? 'Widen the dates or clear a filter to see more.'
              : 'Changes to templates, campaigns, members, keys and settings show up here as they are made.'
          }
          action={
            filtered ? (
              <Button variant="default" onClick={() => setFilters(NO_FILTERS)}>
                Clear filters
              </Button>
            ) : undefined
          }
        />
      ) : (
        <Stack gap="sm">
          <DataTable
            caption="Audit log, newest first"
            columns={columns}
            rows={entries}
            rowKey={(e) => e.id}
            rowLabel={(e) => e.action}
            minWidth={720}
          />
          {log.isFetchNextPageError && (
            <ErrorAlert error={log.error} title="The next page failed" onRetry={() => void log.fetchNextPage()} />
          )}
          {log.hasNextPage ? (
            <Group justify="center">
              <Button variant="default" onClick={() => void log.fetchNextPage()} loading={log.isFetchingNextPage}>
                Load more
              </Button>
            </Group>
          ) : (
            <Text size="sm" c="dimmed" ta="center">
              That is everything.
            </Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}
