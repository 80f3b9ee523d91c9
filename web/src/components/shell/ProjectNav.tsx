import { Badge, NavLink, Stack, Text } from '@mantine/core';
import { Link, useLocation, useResolvedPath } from 'react-router';
import { IconFolders } from '@tabler/icons-react';
import { projectNav, type NavItem } from '../../app/nav';

function Item({ item, base, onNavigate }: { item: NavItem; base: string; onNavigate?: () => void }) {
  const to = item.to ? `${base}/${item.to}` : base;
  const { pathname } = useLocation();
  const resolved = useResolvedPath(to).pathname;
  const active = item.to ? pathname === resolved || pathname.startsWith(`${resolved}/`) : pathname === resolved;
  const Icon = item.icon;
  return (
    <NavLink
      component={Link}
      to={to}
      label={item.label}
      leftSection={<Icon size={18} stroke={1.6} />}
      rightSection={
        !item.ready && (
          <Badge size="xs" variant="outline" color="gray">
            soon
          </Badge>
        )
      }
      active={active}
      aria-current={active ? 'page' : undefined}
      onClick={onNavigate}
      styles={{ root: { borderRadius: 'var(--mantine-radius-md)' } }}
    />
  );
}

/** The project's sections in the sidebar, from app/nav.tsx. */
export function ProjectNav({ projectId, onNavigate }: { projectId: string; onNavigate?: () => void }) {
  const base = `/p/${projectId}`;
  return (
    <Stack gap="md">
      {projectNav.map((section, i) => (
        <Stack gap={2} key={section.title ?? i}>
          {section.title && (
            <Text size="xs" fw={600} c="dimmed" tt="uppercase" px="sm" pb={4}>
              {section.title}
            </Text>
          )}
          {section.items.map((item) => (
            <Item key={item.label} item={item} base={base} onNavigate={onNavigate} />
          ))}
        </Stack>
      ))}
    </Stack>
  );
}

/** The sidebar on account pages (no project open): the way back to the projects list. */
export function AccountNav({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <Stack gap={2}>
      <Item
        item={{ label: 'All projects', to: '', icon: IconFolders, ready: true }}
        base="/projects"
        onNavigate={onNavigate}
      />
    </Stack>
  );
}
