import {
  ActionIcon,
  Anchor,
  Button,
  Group,
  Pagination,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { IconCopy, IconPlus, IconSearch, IconTemplate, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { DataTable, type Column } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { notifyError, notifySuccess } from '../../components/notify';
import { PageHeader } from '../../components/PageHeader';
import { GalleryButton } from '../email-editor/GalleryButton';
import { QueryState } from '../../components/QueryState';
import { formatRelative } from '../../lib/format';
import { useProject } from '../projects/ProjectContext';
import { duplicateTemplate, templateKeys, useTemplates, type Template, type TemplateFilter } from './api';
import { DeleteTemplateDialog } from './DeleteTemplateDialog';
import { TypeBadge } from './TypeBadge';

type TypeChoice = 'ALL' | 'MARKETING' | 'TRANSACTIONAL';

/** `/p/:projectId/templates`: the project's templates, filtered by type and searched, with duplicate and delete. */
export function TemplatesPage() {
  const { project } = useProject();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [type, setType] = useState<TypeChoice>('ALL');
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const [page, setPage] = useState(1);
  const [deleting, setDeleting] = useState<Template | null>(null);
  const filter: TemplateFilter = { type: type === 'ALL' ? undefined : type, search: debounced, page };
  const templates = useTemplates(project.id, filter);
  const filtered = filter.type !== undefined || Boolean(filter.search);

  const duplicate = async (t: Template) => {
    try {
      const copy = await duplicateTemplate(project.id, t.id);
      await qc.invalidateQueries({ queryKey: templateKeys.all(project.id) });
      notifySuccess(`Duplicated as ${copy.name}.`);
      void navigate(`/p/${project.id}/templates/${copy.id}`);
    } catch (err) {
      notifyError(err, 'Could not duplicate the template');
    }
  };

  const columns: Column<Template>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (t) => (
        <Stack gap={0}>
          <Anchor component={Link} to={`/p/${project.id}/templates/${t.id}`} size="sm" fw={600}>
            {t.name}
          </Anchor>
          <Text size="xs" c="dimmed" lineClamp={1}>
            {t.subject}
          </Text>
        </Stack>
      ),
    },
    { key: 'type', header: 'Type', width: 170, render: (t) => <TypeBadge type={t.type} /> },
    {
      key: 'from',
      header: 'From',
      render: (t) => (
        <Text size="sm" style={{ wordBreak: 'break-all' }}>
          {t.from}
        </Text>
      ),
    },
    {
      key: 'updated',
      header: 'Updated',
      width: 140,
      render: (t) => (
        <Text size="sm" c="dimmed">
          {formatRelative(t.updatedAt)}
        </Text>
      ),
    },
    {
      key: 'actions',
      header: (
        <Text size="sm" fw={700} component="span">
          Actions
        </Text>
      ),
      width: 100,
      align: 'right',
      render: (t) => (
        <Group gap={4} justify="flex-end" wrap="nowrap">
          <Tooltip label="Duplicate">
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={`Duplicate ${t.name}`}
              onClick={() => void duplicate(t)}
            >
              <IconCopy size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Delete">
            <ActionIcon variant="subtle" color="red" aria-label={`Delete ${t.name}`} onClick={() => setDeleting(t)}>
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title="Templates"
        description="Reusable emails with variables like {{firstName}}, filled from each contact's data. Send them from your app with /v1/send, in workflows, or copy them into campaigns."
        actions={
          <>
            <GalleryButton
              projectId={project.id}
              onUse={(g) => void navigate(`/p/${project.id}/templates/new`, { state: { gallery: g } })}
            />
            <Button component={Link} to={`/p/${project.id}/templates/new`} leftSection={<IconPlus size={16} />}>
              New template
            </Button>
          </>
        }
      />
      <Stack gap="md">
        <Group gap="md" align="flex-end" wrap="wrap">
          <SegmentedControl
            aria-label="Template type"
            value={type}
            onChange={(v) => {
              setType(v as TypeChoice);
              setPage(1);
            }}
            data={[
              { value: 'ALL', label: 'All' },
              { value: 'MARKETING', label: 'Marketing' },
              { value: 'TRANSACTIONAL', label: 'Transactional' },
            ]}
          />
          <TextInput
            label="Search templates"
            placeholder="Name, description or subject"
            leftSection={<IconSearch size={16} />}
            value={search}
            onChange={(e) => {
              setSearch(e.currentTarget.value);
              setPage(1);
            }}
            style={{ flex: 1, minWidth: 220, maxWidth: 420 }}
          />
        </Group>
        <QueryState
          query={templates}
          isEmpty={(d) => d.data.length === 0}
          empty={
            filtered ? (
              <EmptyState
                icon={<IconSearch size={28} />}
                title="No template matches"
                description="Try another word or type, or clear the search."
                action={
                  <Button
                    variant="default"
                    onClick={() => {
                      setSearch('');
                      setType('ALL');
                    }}
                  >
                    Clear filters
                  </Button>
                }
              />
            ) : (
              <EmptyState
                icon={<IconTemplate size={28} />}
                title="No template yet"
                description="Create your first template: write its HTML, preview it with a contact's data, and send yourself a test. Its From address must be on a verified domain."
                action={
                  <Button component={Link} to={`/p/${project.id}/templates/new`} leftSection={<IconPlus size={16} />}>
                    New template
                  </Button>
                }
              />
            )
          }
        >
          {(d) => (
            <Stack gap="sm">
              <DataTable
                caption="Templates"
                columns={columns}
                rows={d.data}
                rowKey={(t) => t.id}
                rowLabel={(t) => t.name}
                minWidth={760}
              />
              <Group justify="space-between">
                <Text size="sm" c="dimmed">
                  {d.total} template{d.total === 1 ? '' : 's'}
                </Text>
                {d.totalPages > 1 && (
                  <Pagination
                    total={d.totalPages}
                    value={page}
                    onChange={setPage}
                    size="sm"
                    aria-label="Pages of templates"
                  />
                )}
              </Group>
            </Stack>
          )}
        </QueryState>
      </Stack>
      <DeleteTemplateDialog projectId={project.id} template={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
