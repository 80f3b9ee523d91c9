import { Badge, Group, Menu, Skeleton, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconCheck, IconFolders, IconPlus, IconSelector } from '@tabler/icons-react';
import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import { useProjects } from './api';

// The creation dialog (its form rules, the keys display) loads when first opened, not with the shell.
const CreateProjectModal = lazy(() => import('./CreateProjectModal').then((m) => ({ default: m.CreateProjectModal })));

/**
 * The sidebar's project picker: the current project, the others to switch to (their URL is
 * `/p/:id`, so a switch is a link), all projects, and "New project".
 */
export function ProjectSwitcher({ currentId, onNavigate }: { currentId?: string; onNavigate?: () => void }) {
  const projects = useProjects();
  const [creating, { open, close }] = useDisclosure();
  const current = projects.data?.find((p) => p.id === currentId);
  if (projects.isPending) return <Skeleton h={52} radius="md" />;
  return (
    <>
      <Menu position="bottom-start" width="target" withinPortal>
        <Menu.Target>
          {/* Named by its visible text (WCAG 2.5.3: a voice-control user says what they see), with the
              action for screen readers after it. */}
          <UnstyledButton
            data-testid="project-switcher"
            p="sm"
            w="100%"
            style={{
              border: '1px solid var(--mantine-color-default-border)',
              borderRadius: 'var(--mantine-radius-md)',
              background: 'var(--mantine-color-body)',
            }}
          >
            <Group justify="space-between" wrap="nowrap" gap="xs">
              <div style={{ minWidth: 0 }}>
                <Text size="xs" c="dimmed">
                  Project
                </Text>
                <Text size="sm" fw={600} truncate>
                  {current?.name ?? 'Choose a project'}
                </Text>
                {current && <VisuallyHidden>, switch project</VisuallyHidden>}
              </div>
              <IconSelector size={16} />
            </Group>
          </UnstyledButton>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>Switch project</Menu.Label>
          {projects.data?.map((p) => (
            <Menu.Item
              key={p.id}
              component={Link}
              to={`/p/${p.id}`}
              onClick={onNavigate}
              rightSection={
                p.id === currentId ? (
                  <IconCheck size={14} />
                ) : (
                  <Badge size="xs" variant="outline" color="gray">
                    {p.role.toLowerCase()}
                  </Badge>
                )
              }
            >
              <Text size="sm" truncate maw={150}>
                {p.name}
              </Text>
            </Menu.Item>
          ))}
          <Menu.Divider />
          <Menu.Item component={Link} to="/projects" onClick={onNavigate} leftSection={<IconFolders size={16} />}>
            All projects
          </Menu.Item>
          <Menu.Item leftSection={<IconPlus size={16} />} onClick={open}>
            New project
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {creating && (
        <Suspense>
          <CreateProjectModal opened={creating} onClose={close} />
        </Suspense>
      )}
    </>
  );
}
