import { Anchor, Badge, Box, Button, Code } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconFolderPlus, IconPlus } from '@tabler/icons-react';
import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import type { ProjectSummary } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { StatusBadge } from '../../components/StatusBadge';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { AppLayout } from '../../components/shell/AppLayout';
import { formatDate } from '../../lib/format';
import { PendingInvitations } from '../invitations/PendingInvitations';
import { useOpenedOnce } from '../../components/useOpenedOnce';
import { useProjects } from './api';

// The dialog (its form and zod) loads on its first opening, not with the screen.
const CreateProjectModal = lazy(() => import('./CreateProjectModal').then((m) => ({ default: m.CreateProjectModal })));

const columns: Column<ProjectSummary>[] = [
  {
    key: 'name',
    header: 'Project',
    render: (p) => (
      <Anchor component={Link} to={`/p/${p.id}`} size="sm" fw={600}>
        {p.name}
      </Anchor>
    ),
  },
  {
    key: 'role',
    header: 'Your role',
    render: (p) => (
      <Badge variant="outline" color="gray">
        {p.role.toLowerCase()}
      </Badge>
    ),
    width: 120,
  },
  { key: 'key', header: 'Public key', render: (p) => <Code>{p.public}</Code>, width: 140 },
  {
    key: 'state',
    header: 'State',
    width: 110,
    render: (p) =>
      p.disabled ? <StatusBadge tone="danger">disabled</StatusBadge> : <StatusBadge tone="success">active</StatusBadge>,
  },
  { key: 'created', header: 'Created', render: (p) => formatDate(p.createdAt), width: 140 },
];

/** `/projects`: every project of the user, to open one or create another. */
export function ProjectsPage() {
  const projects = useProjects();
  const [creating, { open, close }] = useDisclosure();
  const createLoaded = useOpenedOnce(creating);
  return (
    <AppLayout>
      <PageHeader
        title="Projects"
        description="Each project has its own contacts, templates, domains, API keys and members."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            New project
          </Button>
        }
      />
      <Box mb="lg">
        <PendingInvitations />
      </Box>
      <QueryState
        query={projects}
        empty={
          <EmptyState
            icon={<IconFolderPlus size={28} />}
            title="No projects yet"
            description="Create a project for the app that will send mail; you get its API keys right away."
            action={<Button onClick={open}>Create a project</Button>}
          />
        }
      >
        {(list) => (
          <DataTable
            caption="Your projects"
            columns={columns}
            rows={list}
            rowKey={(p) => p.id}
            rowLabel={(p) => p.name}
          />
        )}
      </QueryState>
      <Suspense>{createLoaded && <CreateProjectModal opened={creating} onClose={close} />}</Suspense>
    </AppLayout>
  );
}
