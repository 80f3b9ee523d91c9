import { ActionIcon, AppShell, Box, Burger, Button, Group, Kbd, NavLink } from '@mantine/core';
import { useDisclosure, useHotkeys, useOs } from '@mantine/hooks';
import { IconBook, IconExternalLink, IconSearch } from '@tabler/icons-react';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { UserMenu } from '../../features/auth/UserMenu';
import { VerifyEmailBanner } from '../../features/auth/VerifyEmailBanner';
import { ProjectSwitcher } from '../../features/projects/ProjectSwitcher';
import { Logo } from '../Logo';
import { ColorSchemeMenu } from './ColorSchemeMenu';
import { AccountNav, ProjectNav } from './ProjectNav';

interface AppLayoutProps {
  /** The project whose sections the sidebar lists; none on account pages (projects list, welcome). */
  projectId?: string;
  children: ReactNode;
}

// Spotlight and its searches load on the first Ctrl+K or Search press: no first screen waits for them.
const CommandPalette = lazy(async () => ({ default: (await import('./CommandPalette')).CommandPalette }));

/**
 * The command palette's state: `asked` counts the asks (0: never asked, not loaded); the palette opens
 * on each new count. Ctrl+K / Cmd+K is bound here so that it works before the palette's code is loaded.
 */
function usePalette() {
  const [asked, setAsked] = useState(0);
  const open = () => setAsked((n) => n + 1);
  useHotkeys([['mod+K', open]], ['INPUT', 'TEXTAREA', 'SELECT']);
  return { asked, open };
}

/** The header's way into the command palette: a labelled button on wide screens, an icon on phones. */
function SearchButton({ onClick }: { onClick: () => void }) {
  const mac = useOs() === 'macos';
  return (
    <>
      <Button
        variant="default"
        visibleFrom="sm"
        leftSection={<IconSearch size={16} stroke={1.6} />}
        rightSection={<Kbd size="xs">{mac ? '⌘ K' : 'Ctrl K'}</Kbd>}
        onClick={onClick}
        fw={500}
      >
        Search
      </Button>
      <ActionIcon variant="default" size={34} hiddenFrom="sm" aria-label="Search" onClick={onClick}>
        <IconSearch size={18} stroke={1.6} />
      </ActionIcon>
    </>
  );
}

/**
 * The signed-in frame: header (logo, search, colour scheme, account menu), sidebar (project switcher,
 * the project's sections, the API reference; a drawer on narrow screens), the page in a centred
 * column, and the command palette.
 */
export function AppLayout({ projectId, children }: AppLayoutProps) {
  const [opened, { toggle, close }] = useDisclosure();
  const palette = usePalette();
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 260, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding={{ base: 'md', sm: 'xl' }}
    >
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Link to="/" aria-label="Pigeon home" style={{ textDecoration: 'none' }}>
              <Logo />
            </Link>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <SearchButton onClick={palette.open} />
            <ColorSchemeMenu />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label="Main navigation">
        <AppShell.Section mb="md">
          <ProjectSwitcher currentId={projectId} onNavigate={close} />
        </AppShell.Section>
        <AppShell.Section grow style={{ overflowY: 'auto' }}>
          {projectId ? <ProjectNav projectId={projectId} onNavigate={close} /> : <AccountNav onNavigate={close} />}
        </AppShell.Section>
        <AppShell.Section pt="sm" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
          {/* Served by the API beside the dashboard, not a route of it: a plain link, in a new tab. */}
          <NavLink
            href="/docs"
            target="_blank"
            rel="noopener"
            label="API reference"
            leftSection={<IconBook size={18} stroke={1.6} />}
            rightSection={<IconExternalLink size={14} stroke={1.6} aria-label="opens in a new tab" />}
            styles={{ root: { borderRadius: 'var(--mantine-radius-md)' } }}
          />
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <Box maw={1080} mx="auto">
          <VerifyEmailBanner />
          {children}
        </Box>
      </AppShell.Main>
      {palette.asked > 0 && (
        <Suspense fallback={null}>
          <CommandPalette projectId={projectId} asked={palette.asked} />
        </Suspense>
      )}
    </AppShell>
  );
}
