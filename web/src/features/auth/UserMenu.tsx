import { Avatar, Group, Menu, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconFolders, IconLogout, IconUserCog } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { notifyError } from '../../components/notify';
import { useLogout, useMe } from './api';

/** The account menu in the header: who is signed in, the projects list, the account screen, log out. */
export function UserMenu() {
  const me = useMe();
  const logout = useLogout();
  const navigate = useNavigate();
  const email = me.data?.email ?? '';
  const onLogout = () =>
    logout.mutate(undefined, {
      onSuccess: () => navigate('/login', { replace: true }),
      onError: (err) => notifyError(err, 'Could not log out'),
    });
  return (
    <Menu position="bottom-end" width={240} withinPortal>
      <Menu.Target>
        {/* The name starts with the visible text (the address; the avatar's initial is decoration), so that
            a voice-control user can say what they see (WCAG 2.5.3). */}
        <UnstyledButton aria-label={email ? `${email}, account menu` : 'Account menu'} data-testid="user-menu">
          <Group gap={8} wrap="nowrap">
            <Avatar size={30} radius="xl" color="indigo" aria-hidden>
              {email.slice(0, 1).toUpperCase()}
            </Avatar>
            <Text size="sm" visibleFrom="sm" maw={220} truncate>
              {email}
            </Text>
            <IconChevronDown size={14} />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Signed in as {email}</Menu.Label>
        <Menu.Item component={Link} to="/projects" leftSection={<IconFolders size={16} />}>
          All projects
        </Menu.Item>
        <Menu.Item component={Link} to="/account" leftSection={<IconUserCog size={16} />}>
          Account
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item leftSection={<IconLogout size={16} />} onClick={onLogout}>
          Log out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
