import { Anchor, Button, Group, MultiSelect, Select, SimpleGrid, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconMail, IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { CursorPager, useCursorPages } from '../../components/CursorPager';
import { DataTable, type Column } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ContentSkeleton } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { formatDateTime, formatRelative } from '../../lib/format';
import { useProject } from '../projects/ProjectContext';
import {
  EMAILS_PAGE,
  NO_FILTERS,
  useEmails,
  type EmailFilters,
  type EmailSource,
  type EmailStatus,
  type EmailSummary,
} from './api';
import { EmailStatusBadge, SOURCES, SourceText, STATUSES } from './status';

/** Where the page stands: "3 emails" when one page holds them all, else "26–50" (of the total on the first page). */
function countLine(page: { data: unknown[]; total: number; hasMore: boolean }, pageIndex: number): string {
  const n = page.data.length;
  if (pageIndex === 0 && !page.hasMore) return `${n} email${n === 1 ? '' : 's'}`;
  const range = `${pageIndex * EMAILS_PAGE + 1}–${pageIndex * EMAILS_PAGE + n}`;
  return pageIndex === 0 ? `${range} of ${page.total} emails` : `Emails ${range}`;
}

/** The recipient as "Name <address>", or the address alone. */
const recipient = (e: EmailSummary) => (e.to.name ? `${e.to.name} <${e.to.email}>` : e.to.email);

/**
 * `/p/:projectId/emails`: every email the project sent or is sending, newest first, filtered by status,
 * recipient, source and days, a page at a time; each row opens the email's page.
 */
export function EmailsPage() {
  const { project } = useProject();
  const [form, setForm] = useState<EmailFilters>(NO_FILTERS);
  const [debouncedTo] = useDebouncedValue(form.to.trim(), 300);
  // A window that ends before it starts is pointed out at the field and left out of the request.
  const backwards = Boolean(form.since && form.until && form.until < form.since);
  const filters: EmailFilters = { ...form, to: debouncedTo, until: backwards ? '' : form.until };
  // New filters start again at the first page.
  const pages = useCursorPages(JSON.stringify(filters));
  const pageIndex = pages.pageIndex;
  const emails = useEmails(project.id, filters, pages.cursor);
  const set = (patch: Partial<EmailFilters>) => setForm((f) => ({ ...f, ...patch }));
  const filtered = JSON.stringify(form) !== JSON.stringify(NO_FILTERS);

  const columns: Column<EmailSummary>[] = [
    { key: 'status', header: 'Status', width: 130, render: (e) => <EmailStatusBadge status={e.status} /> },
    {
      key: 'subject',
      header: 'Subject',
      render: (e) => (
        <Anchor
          component={Link}
          to={`/p/${project.id}/emails/${e.id}`}
          size="sm"
          fw={600}
          lineClamp={2}
          style={{ wordBreak: 'break-word' }}
        >
          {e.subject || '(no subject)'}
        </Anchor>
      ),
    },
    {
      key: 'to',
      header: 'Recipient',
      render: (e) => (
        <Text size="sm" style={{ wordBreak: 'break-all' }}>
          {recipient(e)}
        </Text>
      ),
    },
    {
      key: 'source',
      header: 'Source',
      width: 170,
      render: (e) => <SourceText projectId={project.id} source={e.source} />,
    },
    {
      key: 'when',
      header: 'Queued',
      width: 140,
      render: (e) => (
        <Tooltip label={formatDateTime(e.createdAt)}>
          <Text size="sm" c="dimmed" component="time" dateTime={e.createdAt}>
            {formatRelative(e.createdAt)}
          </Text>
        </Tooltip>
      ),
    },
  ];

  const page = emails.data;
  return (
    <>
      <PageHeader
        title="Emails"
        description="Every email this project sent or is sending, whatever sent it: your app through the API, campaigns, workflows and test sends. Open one to see it as the recipient does, with what happened to it."
      />
      <Stack gap="md">
        <SimpleGrid cols={{ base: 2, md: 5 }} spacing="md" verticalSpacing="sm" maw={1100}>
          <MultiSelect
            label="Status"
            placeholder={form.statuses.length ? undefined : 'Any status'}
            data={(Object.keys(STATUSES) as EmailStatus[]).map((s) => ({ value: s, label: STATUSES[s].label }))}
            value={form.statuses}
            onChange={(v) => set({ statuses: v as EmailStatus[] })}
            clearable
            data-testid="status-filter"
          />
          <TextInput
            label="Recipient"
            placeholder="Part of the address"
            leftSection={<IconSearch size={16} />}
            value={form.to}
            onChange={(e) => set({ to: e.currentTarget.value })}
          />
          <Select
            label="Source"
            placeholder="Any source"
            data={(Object.keys(SOURCES) as EmailSource[]).map((s) => ({ value: s, label: SOURCES[s] }))}
            value={form.source}
            onChange={(v) => set({ source: v as EmailSource | null })}
            clearable
          />
          <TextInput
            label="From day"
            type="date"
            value={form.since}
            onChange={(e) => set({ since: e.currentTarget.value })}
          />
          <TextInput
            label="To day"
            type="date"
            value={form.until}
            onChange={(e) => set({ until: e.currentTarget.value })}
            error={backwards ? 'Pick a day on or after the from day' : undefined}
          />
        </SimpleGrid>
        {filtered && (
          <Group>
            <Button variant="subtle" size="xs" onClick={() => setForm(NO_FILTERS)}>
              Clear filters
            </Button>
          </Group>
        )}
        {emails.isPending ? (
          <ContentSkeleton rows={6} />
        ) : !page ? (
          <ErrorAlert error={emails.error} onRetry={() => void emails.refetch()} />
        ) : page.data.length === 0 && pageIndex === 0 ? (
          filtered ? (
            <EmptyState
              icon={<IconSearch size={28} />}
              title="No email matches"
              description="Change or clear the filters to see more."
              action={
                <Button variant="default" onClick={() => setForm(NO_FILTERS)}>
                  Clear filters
                </Button>
              }
            />
          ) : (
            <EmptyState
              icon={<IconMail size={28} />}
              title="No email yet"
              description={
                <>
                  Send one from your app with <code>POST /v1/send</code> and your secret key (see API keys): it shows up
                  here with its status, then as the recipient sees it.
                </>
              }
              action={
                <Button component={Link} to={`/p/${project.id}/keys`} variant="default">
                  API keys
                </Button>
              }
            />
          )
        ) : (
          <Stack gap="sm">
            {emails.isError && (
              <ErrorAlert error={emails.error} title="This page failed" onRetry={() => void emails.refetch()} />
            )}
            <DataTable
              caption="Emails, newest first"
              columns={columns}
              rows={page.data}
              rowKey={(e) => e.id}
              rowLabel={(e) => e.to.email}
              minWidth={760}
            />
            <Group justify="space-between" wrap="wrap">
              <Text size="sm" c="dimmed" data-testid="emails-count">
                {countLine(page, pageIndex)}
              </Text>
              <CursorPager pages={pages} next={page.hasMore ? page.cursor : null} waiting={emails.isPlaceholderData} />
            </Group>
          </Stack>
        )}
      </Stack>
    </>
  );
}
