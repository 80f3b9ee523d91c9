import {
  ActionIcon,
  Button,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconDownload, IconMailOff, IconPlus, IconSearch, IconTrash, IconUpload } from '@tabler/icons-react';
import { lazy, Suspense, useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CursorPager, useCursorPages } from '../../components/CursorPager';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ContentSkeleton } from '../../components/Loading';
import { notifyError, notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { formatDateTime, formatRelative } from '../../lib/format';
import { useOpenedOnce } from '../../components/useOpenedOnce';
import { useProject } from '../projects/ProjectContext';
import {
  downloadExport,
  removeSuppression,
  suppressionKeys,
  SUPPRESSIONS_PAGE,
  useSuppressions,
  type Suppression,
  type SuppressionFilters,
  type SuppressionReason,
} from './api';
import { REASONS } from './reasons';

// The dialogs (zod, the CSV reader) load on their first opening, not with the screen.
const AddSuppressionModal = lazy(() =>
  import('./AddSuppressionModal').then((m) => ({ default: m.AddSuppressionModal })),
);
const ImportSuppressionsModal = lazy(() =>
  import('./ImportSuppressionsModal').then((m) => ({ default: m.ImportSuppressionsModal })),
);

const NONE: SuppressionFilters = { search: '', reason: null };

/**
 * `/p/:projectId/suppressions`: the addresses that get no marketing mail, searched and filtered a page
 * at a time; add one, remove one (confirmed), import a CSV file, export the current search as CSV.
 */
export function SuppressionsPage() {
  const { project } = useProject();
  const qc = useQueryClient();
  const [form, setForm] = useState<SuppressionFilters>(NONE);
  const [search] = useDebouncedValue(form.search.trim().toLowerCase(), 300);
  const filters: SuppressionFilters = { search, reason: form.reason };
  // Other filters start again at the first page.
  const pages = useCursorPages(JSON.stringify(filters));
  const pageIndex = pages.pageIndex;
  const list = useSuppressions(project.id, filters, pages.cursor);
  const [adding, add] = useDisclosure();
  const [importing, importer] = useDisclosure();
  const addLoaded = useOpenedOnce(adding);
  const importLoaded = useOpenedOnce(importing);
  const [removing, setRemoving] = useState<Suppression | null>(null);
  const exporter = useMutation({
    mutationFn: () => downloadExport(project.id, filters),
    onError: (e) => notifyError(e, 'Could not export the list'),
  });
  const filtered = filters.search !== '' || filters.reason !== null;
  const page = list.data;

  const table = page && (
    <Stack gap="sm">
      <DataTable
        caption="Suppressed addresses, newest first"
        rows={page.data}
        rowKey={(s) => s.email}
        rowLabel={(s) => s.email}
        minWidth={560}
        columns={[
          {
            key: 'email',
            header: 'Address',
            render: (s) => (
              <Text size="sm" fw={500} style={{ wordBreak: 'break-all' }}>
                {s.email}
              </Text>
            ),
          },
          {
            key: 'reason',
            header: 'Reason',
            width: 170,
            render: (s) => (
              <Tooltip label={REASONS[s.reason].hint} multiline w={240}>
                <Text size="sm" data-reason={s.reason}>
                  {REASONS[s.reason].label}
                </Text>
              </Tooltip>
            ),
          },
          {
            key: 'when',
            header: 'Since',
            width: 140,
            render: (s) => (
              <Tooltip label={formatDateTime(s.createdAt)}>
                <Text size="sm" c="dimmed" component="time" dateTime={s.createdAt}>
                  {formatRelative(s.createdAt)}
                </Text>
              </Tooltip>
            ),
          },
          {
            key: 'remove',
            header: <VisuallyHidden>Remove</VisuallyHidden>,
            width: 60,
            align: 'right',
            render: (s) => (
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Remove ${s.email} from the list`}
                onClick={() => setRemoving(s)}
              >
                <IconTrash size={16} />
              </ActionIcon>
            ),
          },
        ]}
      />
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed" data-testid="suppressions-count">
          {pageIndex === 0 && !page.hasMore
            ? `${page.data.length} address${page.data.length === 1 ? '' : 'es'}`
            : pageIndex === 0
              ? `1–${page.data.length} of ${page.total} addresses`
              : `Addresses ${pageIndex * SUPPRESSIONS_PAGE + 1}–${pageIndex * SUPPRESSIONS_PAGE + page.data.length}`}
        </Text>
        <CursorPager pages={pages} next={page.hasMore ? page.cursor : null} waiting={list.isPlaceholderData} />
      </Group>
    </Stack>
  );

  return (
    <>
      <PageHeader
        title="Suppressions"
        description="Addresses that get no marketing mail (campaigns and marketing templates), whatever their subscription: hard bounces and spam complaints land here on their own, and you can add your own. Transactional mail, such as a receipt or a password reset, still reaches them."
      />
      <Stack gap="md">
        <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm" style={{ flex: 1, maxWidth: 560 }}>
            <TextInput
              label="Search"
              placeholder="Part of the address"
              leftSection={<IconSearch size={16} />}
              value={form.search}
              onChange={(e) => setForm((f) => ({ ...f, search: e.currentTarget.value }))}
            />
            <Select
              label="Reason"
              placeholder="Any reason"
              clearable
              data={(Object.keys(REASONS) as SuppressionReason[]).map((r) => ({ value: r, label: REASONS[r].label }))}
              value={form.reason}
              onChange={(v) => setForm((f) => ({ ...f, reason: v as SuppressionReason | null }))}
            />
          </SimpleGrid>
          <Group gap="xs" wrap="wrap">
            <Button leftSection={<IconPlus size={16} />} onClick={add.open}>
              Add address
            </Button>
            <Button variant="default" leftSection={<IconUpload size={16} />} onClick={importer.open}>
              Import CSV
            </Button>
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              loading={exporter.isPending}
              onClick={() => exporter.mutate()}
            >
              {filtered ? 'Export these' : 'Export CSV'}
            </Button>
          </Group>
        </Group>
        {list.isPending ? (
          <ContentSkeleton rows={5} />
        ) : !page ? (
          <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />
        ) : page.data.length === 0 && pageIndex === 0 ? (
          filtered ? (
            <EmptyState
              icon={<IconSearch size={28} />}
              title="No address matches"
              description="Change the search or the reason to see more."
              action={
                <Button variant="default" onClick={() => setForm(NONE)}>
                  Clear the search
                </Button>
              }
            />
          ) : (
            <EmptyState
              icon={<IconMailOff size={28} />}
              title="No suppressed address"
              description="When a mail bounces for good or a recipient marks it as spam, the address is added here so that campaigns skip it. Add addresses yourself, or import an opt-out list from another provider."
            />
          )
        ) : (
          <>
            {list.isError && (
              <ErrorAlert error={list.error} title="This page failed" onRetry={() => void list.refetch()} />
            )}
            {table}
          </>
        )}
      </Stack>
      <Suspense>
        {addLoaded && <AddSuppressionModal projectId={project.id} opened={adding} onClose={add.close} />}
        {importLoaded && <ImportSuppressionsModal projectId={project.id} opened={importing} onClose={importer.close} />}
      </Suspense>
      <ConfirmDialog
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title="Remove from the suppression list?"
        confirmLabel="Remove"
        danger
        onConfirm={async () => {
          if (!removing) return;
          await removeSuppression(project.id, removing.email);
          await qc.invalidateQueries({ queryKey: suppressionKeys.all(project.id) });
          notifySuccess(`${removing.email} is off the list.`);
        }}
      >
        <Text size="sm">
          Marketing mail may go to <b>{removing?.email}</b> again if its contact is subscribed.
          {removing && (removing.reason === 'bounce' || removing.reason === 'complaint')
            ? ' It was added because of a bounce or a spam complaint: sending to it again can hurt your sender reputation.'
            : ''}
        </Text>
      </ConfirmDialog>
    </>
  );
}
