import { Button, Paper, Stack, Text, Title } from '@mantine/core';
import { IconShieldLock } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useSessions } from '../account/security-api';

/**
 * Whether this browser's session signed in with a password alone (no second factor, no SSO), as the
 * account's sessions list says; undefined while it loads, false when it cannot be read.
 */
export function usePasswordOnlySession(): boolean | undefined {
  const sessions = useSessions();
  // Without the list (an error), the API's own 403s say it.
  if (sessions.isError) return false;
  if (!sessions.data) return undefined;
  return sessions.data.find((s) => s.current)?.method === 'password';
}

/**
 * What a member of a project that requires two-factor sign-in sees instead of the project while their
 * session signed in with a password alone (the API answers 403 TWO_FACTOR_REQUIRED to every call).
 */
export function TwoFactorRequiredPage({ projectName }: { projectName: string }) {
  return (
    <Paper p="xl" maw={560} mx="auto" mt="xl" data-testid="two-factor-required">
      <Stack gap="md" align="flex-start">
        <IconShieldLock size={36} aria-hidden />
        <Title order={1} size="h3">
          {projectName} requires two-factor sign-in
        </Title>
        <Text>
          To open this project, set up an authenticator app or a passkey for your account, then sign out and sign in
          again with it. Setting up an authenticator app here also counts for this browser at once.
        </Text>
        <Button component={Link} to="/account/security">
          Set up two-factor sign-in
        </Button>
      </Stack>
    </Paper>
  );
}
