import { Anchor, Stack } from '@mantine/core';
import { Link } from 'react-router';
import { PageHeader } from '../../components/PageHeader';
import { AppLayout } from '../../components/shell/AppLayout';
import { PasskeysCard } from './PasskeysCard';
import { SessionsListCard } from './SessionsListCard';
import { TwoFactorCard } from './TwoFactorCard';

/** `/account/security`: two-factor sign-in, passkeys and the account's sessions. */
export function SecurityPage() {
  return (
    <AppLayout>
      <Stack maw={720} mx="auto" gap="lg">
        <PageHeader title="Security" description="How you sign in to Pigeon, and where you are signed in." />
        <Anchor component={Link} to="/account" size="sm">
          Password and email address
        </Anchor>
        <TwoFactorCard />
        <PasskeysCard />
        <SessionsListCard />
      </Stack>
    </AppLayout>
  );
}
