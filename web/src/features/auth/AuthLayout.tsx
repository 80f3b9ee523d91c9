import { Anchor, Center, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Logo } from '../../components/Logo';

interface AuthLayoutProps {
  title: string;
  subtitle?: ReactNode;
  children: ReactNode;
  /** Links under the card ("No account? Sign up"). */
  footer?: ReactNode;
}

/** The centred card of the signed-out pages (log in, sign up, password reset, email verification). */
export function AuthLayout({ title, subtitle, children, footer }: AuthLayoutProps) {
  return (
    <Center mih="100vh" p="md" component="main">
      <Stack w="100%" maw={420} gap="lg">
        <Group justify="center">
          <Anchor component={Link} to="/" underline="never" aria-label="Pigeon home">
            <Logo size="lg" />
          </Anchor>
        </Group>
        <Paper p="xl" shadow="sm">
          <Stack gap="lg">
            <Stack gap={4}>
              <Title order={1} size="h3">
                {title}
              </Title>
              {subtitle && (
                <Text size="sm" c="dimmed">
                  {subtitle}
                </Text>
              )}
            </Stack>
            {children}
          </Stack>
        </Paper>
        {footer && (
          <Text size="sm" ta="center">
            {footer}
          </Text>
        )}
      </Stack>
    </Center>
  );
}
