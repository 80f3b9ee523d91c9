import { Button, Group, NativeSelect, SegmentedControl, Stack, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconChevronLeft, IconChevronRight, IconDownload, IconSearch, IconUsers } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ErrorAlert } from '../../components/ErrorAlert';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { formatDate } from '../../lib/format';
import { downloadContactsCsv, FIRST_PAGE, PAGE_SIZE, useContacts, type ContactRow, type ListParams } from './api';
import { BulkActions } from './BulkActions';

const SORTS = [
  { value: 'createdAt:desc', label: 'Newest first' },
  { value: 'createdAt:asc', label: 'Oldest first' },
  { value: 'email:asc', label: 'Email A–Z' },
  { value: 'email:desc', label: 'Email Z–A' },
];

/** A short, one-line view of a contact's data: the first keys and how many more. */
function dataSummary(data: Record<string, unknown>): string {
  const entries = Object.entries(data);
  if (entries.length === 0) return '—';
  const shown = entries.slice(0, 3).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return shown.join(' · ') + (entries.length > 3 ? ` · +${entries.length - 3}` : '');
}

interface ContactsTableProps {
  projectId: string;
  /** Buttons of the empty state (add, import). */
  emptyActions: ReactNode;
}

const SUBSCRIBED_VALUES = new Set(['true', 'false']);

/**
 * The list's filters in the address (`?q=…&subscribed=true|false&sort=email:asc`), so a reload or a
 * shared link shows the same list; defaults are left out of the address.
 */
function useListFilters() {
  const [params, setParams] = useSearchParams();
  const sub = params.get('subscribed') ?? '';
  const sortParam = params.get('sort') ?? '';
  const filters = {
    search: params.get('q') ?? '',
    subscribed: (SUBSCRIBED_VALUES.has(sub) ? sub : 'all') as ListParams['subscribed'],
    sort: SORTS.some((s) => s.value === sortParam) ? sortParam : `${FIRST_PAGE.sort}:${FIRST_PAGE.dir}`,
  };
  const set = (key: 'q' | 'subscribed' | 'sort', value: string, fallback: string) =>
    setParams(
      () => {
        // Not the updater's `prev`: that is the address of the last render, so two changes before the
        // next render (a filter click, then a sort, or the debounced search) would undo the first. The
        // router's history writes the address at once, so it is always the latest.
        const next = new URLSearchParams(window.location.search);
        if (value === fallback) next.delete(key);
        else next.set(key, value);
        return next;
      },
      { replace: true },
    );
  return {
    ...filters,
    setSearch: (v: string) => set('q', v.trim(), ''),
    setSubscribed: (v: string) => set('subscribed', v, 'all'),
    setSort: (v: string) => set('sort', v, `${FIRST_PAGE.sort}:${FIRST_PAGE.dir}`),
  };
}

/**
 * The contact list (`GET /contacts`): search by email or name (debounced), subscribed filter, sort —
 * all kept in the address —, pages of 50 walked with the API's cursor (previous pages are
 * remembered), checkboxes with "select the page", the bulk actions over the selection, and the CSV
 * export of the current filter.
 */
export function ContactsTable({ projectId, emptyActions }: ContactsTableProps) {
  const url = useListFilters();
  const [searchInput, setSearchInput] = useState(url.search);
  const [debounced] = useDebouncedValue(searchInput, 300);
  const { search, subscribed, sort, setSubscribed, setSort } = url;
  const setUrlSearch = url.setSearch;
  useEffect(() => {
    if (debounced.trim() !== search) setUrlSearch(debounced);
    // Only a new typed value writes the address; the address changing does not retype the box.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debounced]);
  const exporting = useMutation({ mutationFn: () => downloadContactsCsv(projectId, { search, subscribed }) });
  // Cursors of the pages walked so far: the last one is the current page ('' is the first page).
  const [cursors, setCursors] = useState<string[]>(['']);
  const [total, setTotal] = useState<number | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());

  const [sortKey, dir] = sort.split(':') as [ListParams['sort'], ListParams['dir']];
  const cursor = cursors[cursors.length - 1];
  const params: ListParams = { search, subscribed, sort: sortKey, dir, limit: PAGE_SIZE, cursor: cursor || undefined };
  const contacts = useContacts(projectId, params);

  // New filters start again at the first page with nothing selected (state adjusted while rendering,
  // React's pattern for state that follows other values, so no frame shows the old page).
  const filters = `${search}\n${subscribed}\n${sort}`;
  const [shownFilters, setShownFilters] = useState(filters);
  if (shownFilters !== filters) {
    setShownFilters(filters);
    setCursors(['']);
    setSelected(new Set());
  }
  // The API counts only on the first page: keep that count while walking further.
  const firstPageTotal = !contacts.isPlaceholderData && contacts.data && !cursor ? contacts.data.total : null;
  if (firstPageTotal !== null && firstPageTotal !== total) setTotal(firstPageTotal);

  const rows = contacts.data?.data ?? [];
  const pageIds = rows.map((c) => c.id);
  const allOnPage = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
  const someOnPage = pageIds.some((id) => selected.has(id));
  const toggle = (id: string, on: boolean) =>
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const togglePage = (on: boolean) =>
    setSelected((s) => {
      const next = new Set(s);
      for (const id of pageIds)
        if (on) next.add(id);
        else next.delete(id);
      return next;
    });
  const filtered = search.trim() !== '' || subscribed !== 'all';
  const first = (cursors.length - 1) * PAGE_SIZE + 1;

  return (
    <Stack gap="md">
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          label="Search"
          placeholder="Part of an email or a name"
          leftSection={<IconSearch size={16} />}
          value={searchInput}
          onChange={(e) => setSearchInput(e.currentTarget.value)}
          style={{ flex: 1, minWidth: 220 }}
          type="search"
        />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="subscribed-filter-label">
            Subscription
          </Text>
          <SegmentedControl
            aria-labelledby="subscribed-filter-label"
            data-testid="subscribed-filter"
            value={subscribed}
            onChange={(v) => setSubscribed(v as ListParams['subscribed'])}
            data={[
              { value: 'all', label: 'All' },
              { value: 'true', label: 'Subscribed' },
              { value: 'false', label: 'Unsubscribed' },
            ]}
          />
        </Stack>
        <NativeSelect label="Sort" data={SORTS} value={sort} onChange={(e) => setSort(e.currentTarget.value)} w={170} />
        <Button
          variant="default"
          leftSection={<IconDownload size={16} />}
          loading={exporting.isPending}
          onClick={() => exporting.mutate()}
        >
          Export CSV
        </Button>
      </Group>
      {exporting.isError && <ErrorAlert error={exporting.error} />}
      <BulkActions projectId={projectId} selected={[...selected]} onQueued={() => setSelected(new Set())} />
      <QueryState
        query={contacts}
        skeletonRows={6}
        isEmpty={(d) => d.data.length === 0 && !d.cursor && cursors.length === 1}
        empty={
          filtered ? (
            <EmptyState
              icon={<IconSearch size={28} />}
              title="No contact matches"
              description="Try another part of the address or name, or show all subscription states."
            />
          ) : (
            <EmptyState
              icon={<IconUsers size={28} />}
              title="No contacts yet"
              description="Add a contact or import a CSV. Contacts are also created when your app sends to or tracks an event for a new address."
              action={emptyActions}
            />
          )
        }
      >
        {(page) => (
          <Stack gap="sm">
            <DataTable<ContactRow>
              caption="Contacts"
              minWidth={760}
              rows={page.data}
              rowKey={(c) => c.id}
              rowLabel={(c) => c.email}
              columns={[
                {
                  key: 'select',
                  width: 44,
                  header: (
                    <input
                      type="checkbox"
                      className="pigeon-checkbox"
                      aria-label="Select all contacts on this page"
                      checked={allOnPage}
                      ref={(el) => {
                        if (el) el.indeterminate = someOnPage && !allOnPage;
                      }}
                      onChange={(e) => togglePage(e.currentTarget.checked)}
                    />
                  ),
                  render: (c) => (
                    <input
                      type="checkbox"
                      className="pigeon-checkbox"
                      aria-label={`Select ${c.email}`}
                      checked={selected.has(c.id)}
                      onChange={(e) => toggle(c.id, e.currentTarget.checked)}
                    />
                  ),
                },
                {
                  key: 'email',
                  header: 'Email',
                  render: (c) => (
                    <Link to={c.id} className="pigeon-link break-all">
                      {c.email}
                    </Link>
                  ),
                },
                {
                  key: 'subscribed',
                  header: 'Subscription',
                  width: 170,
                  render: (c) =>
                    c.subscribed ? (
                      <StatusBadge tone="success" data-testid="subscribed">
                        Subscribed
                      </StatusBadge>
                    ) : (
                      <StatusBadge tone="neutral" data-testid="subscribed">
                        Unsubscribed
                      </StatusBadge>
                    ),
                },
                {
                  key: 'data',
                  header: 'Data',
                  render: (c) => (
                    <span className="pigeon-text-sm pigeon-dimmed pigeon-clamp-1" style={{ maxWidth: 320 }}>
                      {dataSummary(c.data)}
                    </span>
                  ),
                },
                {
                  key: 'created',
                  header: 'Added',
                  width: 130,
                  render: (c) => <span className="pigeon-text-sm">{formatDate(c.createdAt)}</span>,
                },
              ]}
            />
            <Group justify="space-between">
              <Text size="sm" c="dimmed" data-testid="contacts-count">
                {page.data.length === 0
                  ? 'No more contacts'
                  : `${first.toLocaleString()}–${(first + page.data.length - 1).toLocaleString()}`}
                {total !== null && ` of ${total.toLocaleString()} contact${total === 1 ? '' : 's'}`}
              </Text>
              <Group gap="xs">
                <Button
                  variant="default"
                  size="xs"
                  leftSection={<IconChevronLeft size={14} />}
                  disabled={cursors.length === 1}
                  onClick={() => setCursors((c) => c.slice(0, -1))}
                >
                  Previous<VisuallyHidden> page</VisuallyHidden>
                </Button>
                <Button
                  variant="default"
                  size="xs"
                  rightSection={<IconChevronRight size={14} />}
                  disabled={!page.hasMore || !page.cursor || contacts.isPlaceholderData}
                  onClick={() => page.cursor && setCursors((c) => [...c, page.cursor!])}
                >
                  Next<VisuallyHidden> page</VisuallyHidden>
                </Button>
              </Group>
            </Group>
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}
