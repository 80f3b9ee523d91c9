import { ActionIcon, Anchor, Button, Group, Stack, Text, Tooltip } from '@mantine/core';
import { IconExternalLink, IconForms, IconPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { useProject } from '../projects/ProjectContext';
import { useForms, type Form } from './api';

/**
 * `/p/:projectId/forms`: the project's sign-up forms with their submissions and confirmations
 * (`GET /forms`); each row opens the form's builder, its hosted page opens in a new tab.
 */
export function FormsPage() {
  const { project, can } = useProject();
  const query = useForms(project.id);
  const add = can.editProject && (
    <Button component={Link} to={`/p/${project.id}/forms/new`} leftSection={<IconPlus size={16} />}>
      New form
    </Button>
  );
  return (
    <>
      <PageHeader
        title="Forms"
        description="Sign-up forms for your site, a link in a bio or a QR code. New contacts join the form's topics, at once or after confirming their address by mail (double opt-in)."
        actions={add}
      />
      <QueryState
        query={query}
        empty={
          <EmptyState
            icon={<IconForms size={28} />}
            title="No forms yet"
            description="Create a form, then paste its snippet into your site or share its hosted page. Every sign-up is recorded with where it came from."
            action={add || undefined}
          />
        }
      >
        {(rows) => (
          <Stack gap="sm">
            <DataTable<Form>
              caption="Forms, newest first"
              rows={rows}
              rowKey={(f) => f.id}
              rowLabel={(f) => f.name}
              columns={[
                {
                  key: 'name',
                  header: 'Name',
                  render: (f) => (
                    <Anchor component={Link} to={`/p/${project.id}/forms/${f.id}`} size="sm" fw={600}>
                      {f.name}
                    </Anchor>
                  ),
                },
                {
                  key: 'optin',
                  header: 'Sign-up',
                  width: 170,
                  render: (f) => (
                    <StatusBadge tone={f.doubleOptIn ? 'success' : 'neutral'}>
                      {f.doubleOptIn ? 'Double opt-in' : 'Single opt-in'}
                    </StatusBadge>
                  ),
                },
                {
                  key: 'submissions',
                  header: 'Submissions',
                  width: 120,
                  align: 'right',
                  render: (f) => f.submissions.toLocaleString(),
                },
                {
                  key: 'confirmations',
                  header: 'Confirmed',
                  width: 110,
                  align: 'right',
                  render: (f) => (f.doubleOptIn || f.confirmations ? f.confirmations.toLocaleString() : '—'),
                },
                {
                  key: 'page',
                  header: 'Hosted page',
                  width: 120,
                  render: (f) => (
                    <Group gap={4}>
                      <Tooltip label="Open the hosted page">
                        <ActionIcon
                          component="a"
                          href={f.url}
                          target="_blank"
                          rel="noreferrer"
                          variant="subtle"
                          aria-label={`Open the hosted page of ${f.name}`}
                        >
                          <IconExternalLink size={16} />
                        </ActionIcon>
                      </Tooltip>
                    </Group>
                  ),
                },
              ]}
            />
            {!can.editProject && (
              <Text size="sm" c="dimmed">
                Only owners and admins of this project can add or change forms.
              </Text>
            )}
          </Stack>
        )}
      </QueryState>
    </>
  );
}
