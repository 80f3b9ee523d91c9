import { Paper, Stack, Text, Title } from '@mantine/core';
import { AppLayout } from '../../components/shell/AppLayout';
import { PendingInvitations } from '../invitations/PendingInvitations';
import { CreateProjectFlow } from './CreateProjectFlow';

/** `/welcome`: a new user's first step: joining a project they are invited to, or creating their first one. */
export function WelcomePage() {
  return (
    <AppLayout>
      <Stack maw={560} mx="auto" mt="xl" gap="lg">
        <Stack gap={4}>
          <Title order={1} size="h2">
            Welcome to Pigeon
          </Title>
          <Text c="dimmed">
            A project holds one app&apos;s contacts, templates, domains and API keys. Create your first one; the next
            screen walks you to your first delivered email.
          </Text>
        </Stack>
        <PendingInvitations />
        <Paper p="xl">
          <CreateProjectFlow />
        </Paper>
      </Stack>
    </AppLayout>
  );
}
