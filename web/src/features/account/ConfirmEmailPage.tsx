import { Alert, Anchor, Button, Loader, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconCircleCheck } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ErrorAlert } from '../../components/ErrorAlert';
import { AuthLayout } from '../auth/AuthLayout';
import { authKeys } from '../auth/api';
import { confirmEmailChange } from './api';

/**
 * `/confirm-email?token=…`, the link mailed to a new address: moves the account to it on arrival
 * (signed in or not: the link proves the mailbox).
 */
export function ConfirmEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const qc = useQueryClient();
  const confirm = useMutation({
    mutationFn: confirmEmailChange,
    onSuccess: () => void qc.invalidateQueries({ queryKey: authKeys.me }),
  });
  // Tokens are single-use: send it once even when React runs the effect twice.
  const sent = useRef(false);
  useEffect(() => {
    if (token && !sent.current) {
      sent.current = true;
      confirm.mutate({ token });
    }
  }, [token, confirm]);
  const footer = (
    <Anchor component={Link} to="/">
      Go to the dashboard
    </Anchor>
  );
  return (
    <AuthLayout title="Your new email address" footer={footer}>
      {!token && (
        <Alert color="red" variant="light">
          This page needs the link from the mail sent to your new address.
        </Alert>
      )}
      {confirm.isPending && (
        <Stack align="center" gap="xs">
          <Loader size="sm" />
          <Text size="sm">Changing the address…</Text>
        </Stack>
      )}
      {confirm.isSuccess && (
        <Alert icon={<IconCircleCheck size={18} />} color="teal" variant="light" data-testid="email-changed">
          Your account now uses {confirm.data.email}. Log in with it from now on.
        </Alert>
      )}
      {confirm.isError && (
        <Stack gap="sm">
          <ErrorAlert error={confirm.error} title="This link did not work" />
          <Text size="sm">
            Links work once, for 24 hours. Ask for a new one on your account page, or log in with your current address.
          </Text>
          <Button component={Link} to="/" variant="default">
            Go to the dashboard
          </Button>
        </Stack>
      )}
    </AuthLayout>
  );
}
