import { Alert, Anchor, Button, Loader, PasswordInput, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconCircleCheck } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { z } from 'zod';
import { ApiError } from '../../api/errors';
import { resetPasswordBody } from '../../api/rules';
import { ErrorAlert } from '../../components/ErrorAlert';
import { FormError, useApiForm } from '../../components/forms';
import { AuthLayout } from './AuthLayout';
import { pendingInvitation } from '../invitations/pendingInvitation';
import { authKeys, verifyEmail } from './api';

const passwordSchema = z
  .object({ password: resetPasswordBody.shape.password, confirm: z.string() })
  .refine((v) => v.password === v.confirm, { path: ['confirm'], message: 'The two passwords differ' });

/** Whether the server wants a password to confirm the address from this browser. */
const needsPassword = (err: unknown) =>
  err instanceof ApiError && err.fieldErrors.some((f) => f.code === 'password_required');

/**
 * `/verify-email?token=…` (the mailed link): confirms the address once, on arrival. Opened in a browser
 * that is not signed in to the account, the server asks for a password first, so that nobody who
 * created the account in this person's name keeps it.
 */
export function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const qc = useQueryClient();
  const navigate = useNavigate();
  // A newcomer who came from an invitation link goes back to it: joining is why they signed up.
  const onConfirmed = async () => {
    await qc.invalidateQueries({ queryKey: authKeys.me });
    const invitationId = pendingInvitation.get();
    if (invitationId) await navigate(`/invitations/${invitationId}`, { replace: true });
  };
  const verify = useMutation({ mutationFn: verifyEmail, onSuccess: onConfirmed });
  // Tokens are single-use: send it once even when React runs the effect twice.
  const sent = useRef(false);
  useEffect(() => {
    if (token && !sent.current) {
      sent.current = true;
      verify.mutate({ token });
    }
  }, [token, verify]);
  const withPassword = useApiForm({
    initialValues: { password: '', confirm: '' },
    schema: passwordSchema,
    submit: (v) => verifyEmail({ token, password: v.password }),
    onSuccess: onConfirmed,
  });

  const footer = (
    <Anchor component={Link} to="/">
      Go to the dashboard
    </Anchor>
  );
  const confirmed = verify.isSuccess || withPassword.mutation.isSuccess;
  return (
    <AuthLayout title="Confirm your email" footer={footer}>
      {!token && (
        <Alert color="red" variant="light">
          This page needs the link from the verification mail.
        </Alert>
      )}
      {verify.isPending && (
        <Stack align="center" gap="xs">
          <Loader size="sm" />
          <Text size="sm">Confirming…</Text>
        </Stack>
      )}
      {confirmed && (
        <Alert icon={<IconCircleCheck size={18} />} color="teal" variant="light" data-testid="email-verified">
          Your email address is confirmed.
        </Alert>
      )}
      {!confirmed && verify.isError && needsPassword(verify.error) && (
        <form onSubmit={withPassword.onSubmit} noValidate>
          <Stack gap="md">
            <Text size="sm">
              You are not signed in to this account in this browser. Choose its password to confirm the address: anyone
              else who signed in to it is signed out.
            </Text>
            <PasswordInput
              label="Password"
              description="At least 8 characters"
              autoComplete="new-password"
              required
              key={withPassword.form.key('password')}
              {...withPassword.form.getInputProps('password')}
            />
            <PasswordInput
              label="Repeat the password"
              autoComplete="new-password"
              required
              key={withPassword.form.key('confirm')}
              {...withPassword.form.getInputProps('confirm')}
            />
            <FormError error={withPassword.formError} />
            <Button type="submit" loading={withPassword.mutation.isPending} fullWidth>
              Confirm and sign in
            </Button>
          </Stack>
        </form>
      )}
      {!confirmed && verify.isError && !needsPassword(verify.error) && (
        <Stack gap="sm">
          <ErrorAlert error={verify.error} title="This link did not work" />
          <Text size="sm">
            Links are valid for 24 hours and work once. Log in and ask for a new one from the banner at the top.
          </Text>
          <Button component={Link} to="/" variant="default">
            Go to the dashboard
          </Button>
        </Stack>
      )}
    </AuthLayout>
  );
}
