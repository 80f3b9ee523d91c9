import { AppShell, Box, Burger, Group } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { UserMenu } from '../../features/auth/UserMenu';
import { VerifyEmailBanner } from '../../features/auth/VerifyEmailBanner';
import { ProjectSwitcher } from '../../features/projects/ProjectSwitcher';
import { Logo } from '../Logo';
import { AccountNav, ProjectNav } from './ProjectNav';

interface AppLayoutProps {
  /** The project whose sections the sidebar lists; none on account pages (projects list, welcome). */
  projectId?: string;
  children: ReactNode;
}

/**
 * The signed-in frame: header (logo, account menu), sidebar (project switcher and the project's
 * sections; a drawer on narrow screens), and the page in a centred column.
 */
export function AppLayout({ projectId, children }: AppLayoutProps) {
  const [opened, { toggle, close }] = useDisclosure();
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 260, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding={{ base: 'md', sm: 'xl' }}
    >
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Link to="/" aria-label="Pigeon home" style={{ textDecoration: 'none' }}>
              <Logo />
            </Link>
          </Group>
          <UserMenu />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label="Main navigation">
        <AppShell.Section mb="md">
          <ProjectSwitcher currentId={projectId} onNavigate={close} />
        </AppShell.Section>
        <AppShell.Section grow style={{ overflowY: 'auto' }}>
          {projectId ? <ProjectNav projectId={projectId} onNavigate={close} /> : <AccountNav onNavigate={close} />}
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <Box maw={1080} mx="auto">
          <VerifyEmailBanner />
          {children}
        </Box>
      </AppShell.Main>
    </AppShell>
  );
}
