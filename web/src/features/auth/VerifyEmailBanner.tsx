import { Alert, Button, Group, Text } from '@mantine/core';
import { IconMail } from '@tabler/icons-react';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useMe, useRequestVerification } from './api';

/** Asks a signed-in user with an unconfirmed address to confirm it, with a "send again" button. */
export function VerifyEmailBanner() {
  const me = useMe();
  const resend = useRequestVerification();
  if (!me.data || me.data.emailVerified) return null;
  return (
    <Alert color="yellow" variant="light" icon={<IconMail size={18} />} mb="lg" data-testid="verify-banner">
      <Group justify="space-between" gap="sm">
        <Text size="sm">
          {resend.isSuccess
            ? `A new link is on its way to ${me.data.email}.`
            : `Confirm your email address: open the link we sent to ${me.data.email}.`}
        </Text>
        {!resend.isSuccess && (
          <Button size="xs" variant="default" loading={resend.isPending} onClick={() => resend.mutate()}>
            Send the link again
          </Button>
        )}
      </Group>
      {resend.isError && <ErrorAlert error={resend.error} />}
    </Alert>
  );
}
