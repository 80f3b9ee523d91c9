import { Anchor, Button, Group, Pagination, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconRefresh, IconUsers } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifyError, notifySuccess } from '../../components/notify';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import {
  addMembers,
  computeSegment,
  removeMembers,
  segmentKeys,
  useSegmentMembers,
  type Segment,
  type SegmentMembers,
} from './api';

/** Addresses pasted in any form: separated by commas, semicolons, spaces or lines. */
export const parseEmails = (text: string) => [
  ...new Set(
    text
      .split(/[\s,;]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

/** Paste-to-add and paste-to-remove of a static segment's members (`POST`/`DELETE /segments/:id/members`). */
function StaticMembersForm({ projectId, segment }: { projectId: string; segment: Segment }) {
  const qc = useQueryClient();
  const [text, setText] = useState('');
  const [result, setResult] = useState<string | null>(null);
  const emails = parseEmails(text);
  const run = useMutation({
    mutationFn: async (mode: 'add' | 'remove') => {
      if (mode === 'add') {
        const r = await addMembers(projectId, segment.id, emails);
        return `${r.added} added${r.notFound.length ? `; no contact for ${r.notFound.join(', ')}` : ''}.`;
      }
      const r = await removeMembers(projectId, segment.id, emails);
      return `${r.removed} removed.`;
    },
    onSuccess: (msg) => {
      setResult(msg);
      setText('');
      void qc.invalidateQueries({ queryKey: segmentKeys.all(projectId) });
    },
  });
  return (
    <Stack gap="xs" mb="md">
      <Textarea
        label="Email addresses"
        description="Paste addresses separated by commas, spaces or lines (up to 1,000)."
        autosize
        minRows={2}
        maxRows={8}
        value={text}
        onChange={(e) => {
          setText(e.currentTarget.value);
          setResult(null);
        }}
      />
      <Group>
        <Button
          disabled={!emails.length}
          loading={run.isPending && run.variables === 'add'}
          onClick={() => run.mutate('add')}
        >
          Add {emails.length || ''} to segment
        </Button>
        <Button
          variant="default"
          disabled={!emails.length}
          loading={run.isPending && run.variables === 'remove'}
          onClick={() => run.mutate('remove')}
        >
          Remove from segment
        </Button>
      </Group>
      {result && (
        <Text size="sm" role="status">
          {result}
        </Text>
      )}
      {run.isError && <ErrorAlert error={run.error} />}
    </Stack>
  );
}

/**
 * The members of a segment (`GET /segments/:id/contacts`, 20 a page, live for dynamic segments); the
 * paste form of static segments and "compute now" of tracked ones with its entries and exits.
 */
export function SegmentMembersPanel({ projectId, segment }: { projectId: string; segment: Segment }) {
  const qc = useQueryClient();
  const [page, setPage] = useState(1);
  const query = useSegmentMembers(projectId, segment.id, page);
  const [computed, setComputed] = useState<string | null>(null);
  const compute = useMutation({
    mutationFn: () => computeSegment(projectId, segment.id),
    onSuccess: (r) => {
      setComputed(`${r.entered} entered, ${r.exited} exited; ${r.memberCount} members now.`);
      notifySuccess('Membership computed.');
      void qc.invalidateQueries({ queryKey: segmentKeys.all(projectId) });
    },
    onError: (e) => notifyError(e, 'Could not compute the segment'),
  });
  return (
    <Paper p="md" mt="lg">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Members
        </Title>
        {segment.trackMembership && (
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} />}
            loading={compute.isPending}
            onClick={() => compute.mutate()}
          >
            Compute now
          </Button>
        )}
      </Group>
      {computed && (
        <Text size="sm" mb="sm" role="status">
          {computed}
        </Text>
      )}
      {segment.computeError && (
        <Text size="sm" c="red" mb="sm">
          Last scheduled compute skipped: {segment.computeError}
        </Text>
      )}
      {segment.type === 'STATIC' && <StaticMembersForm projectId={projectId} segment={segment} />}
      <QueryState<SegmentMembers>
        query={query}
        isEmpty={(d) => d.data.length === 0}
        empty={
          <EmptyState
            icon={<IconUsers size={28} />}
            title="No members"
            description={
              segment.type === 'STATIC'
                ? 'Paste email addresses above to add contacts.'
                : 'No contact matches the condition yet: change it, or add contacts with this data.'
            }
          />
        }
      >
        {(d) => (
          <Stack gap="sm">
            <Text size="sm" c="dimmed">
              {d.total.toLocaleString()} members
            </Text>
            <DataTable
              caption="Segment members"
              rows={d.data}
              rowKey={(c) => c.id}
              rowLabel={(c) => c.email}
              columns={[
                {
                  key: 'email',
                  header: 'Email',
                  render: (c) => (
                    <Anchor component={Link} to={`/p/${projectId}/contacts/${c.id}`}>
                      {c.email}
                    </Anchor>
                  ),
                },
                {
                  key: 'sub',
                  header: 'Subscribed',
                  width: 170,
                  render: (c) => (
                    <StatusBadge tone={c.subscribed ? 'success' : 'neutral'}>
                      {c.subscribed ? 'Subscribed' : 'Unsubscribed'}
                    </StatusBadge>
                  ),
                },
                {
                  key: 'created',
                  header: 'Created',
                  width: 200,
                  render: (c) =>
                    new Date(c.createdAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
                },
              ]}
            />
            {d.totalPages > 1 && (
              <Pagination total={d.totalPages} value={page} onChange={setPage} aria-label="Member pages" />
            )}
          </Stack>
        )}
      </QueryState>
    </Paper>
  );
}
