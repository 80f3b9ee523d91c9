import { Anchor, Button, Text } from '@mantine/core';
import { IconFilter, IconPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { useProject } from '../projects/ProjectContext';
import { useSegments, type Segment } from './api';

/** `/p/:projectId/segments`: the project's segments with type, tracking and member count (`GET /segments`). */
export function SegmentsPage() {
  const { project } = useProject();
  const query = useSegments(project.id);
  const base = `/p/${project.id}/segments`;
  const add = (
    <Button component={Link} to={`${base}/new`} leftSection={<IconPlus size={16} />}>
      New segment
    </Button>
  );
  return (
    <>
      <PageHeader
        title="Segments"
        description="Groups of contacts defined by conditions on their data and events, or listed by hand."
        actions={add}
      />
      <QueryState
        query={query}
        empty={
          <EmptyState
            icon={<IconFilter size={28} />}
            title="No segments yet"
            description="Create a segment to send a campaign to part of your contacts, e.g. everyone on the pro plan who purchased this month."
            action={add}
          />
        }
      >
        {(rows) => (
          <DataTable<Segment>
            caption="Segments"
            rows={rows}
            rowKey={(s) => s.id}
            rowLabel={(s) => s.name}
            columns={[
              {
                key: 'name',
                header: 'Name',
                render: (s) => (
                  <>
                    <Anchor component={Link} to={`${base}/${s.id}`} fw={500}>
                      {s.name}
                    </Anchor>
                    {s.description && (
                      <Text size="xs" c="dimmed" lineClamp={1}>
                        {s.description}
                      </Text>
                    )}
                  </>
                ),
              },
              {
                key: 'type',
                header: 'Type',
                width: 120,
                render: (s) => <StatusBadge tone="neutral">{s.type === 'STATIC' ? 'Static' : 'Dynamic'}</StatusBadge>,
              },
              {
                key: 'tracked',
                header: 'Tracked',
                width: 110,
                render: (s) =>
                  s.trackMembership ? (
                    <StatusBadge tone="success">Tracked</StatusBadge>
                  ) : (
                    <Text size="sm" c="dimmed">
                      No
                    </Text>
                  ),
              },
              {
                key: 'members',
                header: 'Members',
                width: 110,
                align: 'right',
                render: (s) => s.memberCount.toLocaleString(),
              },
              {
                key: 'updated',
                header: 'Updated',
                width: 180,
                render: (s) =>
                  new Date(s.updatedAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
              },
            ]}
          />
        )}
      </QueryState>
    </>
  );
}
