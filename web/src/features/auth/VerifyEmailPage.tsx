import { Alert, Anchor, Button, Loader, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconCircleCheck } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ErrorAlert } from '../../components/ErrorAlert';
import { AuthLayout } from './AuthLayout';
import { authKeys, verifyEmail } from './api';

/** `/verify-email?token=…` (the mailed link): confirms the address once, on arrival. */
export function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const qc = useQueryClient();
  const verify = useMutation({
    mutationFn: verifyEmail,
    onSuccess: () => void qc.invalidateQueries({ queryKey: authKeys.me }),
  });
  // Tokens are single-use: send it once even when React runs the effect twice.
  const sent = useRef(false);
  useEffect(() => {
    if (token && !sent.current) {
      sent.current = true;
      verify.mutate(token);
    }
  }, [token, verify]);

  const footer = <Anchor component={Link} to="/">Go to the dashboard</Anchor>;
  return (
    <AuthLayout title="Confirm your email" footer={footer}>
      {!token && <Alert color="red" variant="light">This page needs the link from the verification mail.</Alert>}
      {verify.isPending && (
        <Stack align="center" gap="xs"><Loader size="sm" /><Text size="sm">Confirming…</Text></Stack>
      )}
      {verify.isSuccess && (
        <Alert icon={<IconCircleCheck size={18} />} color="teal" variant="light" data-testid="email-verified">
          Your email address is confirmed.
        </Alert>
      )}
      {verify.isError && (
        <Stack gap="sm">
          <ErrorAlert error={verify.error} title="This link did not work" />
          <Text size="sm">Links are valid for 24 hours and work once. Log in and ask for a new one from the banner at the top.</Text>
          <Button component={Link} to="/" variant="default">Go to the dashboard</Button>
        </Stack>
      )}
    </AuthLayout>
  );
}
