import { Alert, Anchor, Button, PasswordInput, Stack } from '@mantine/core';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { z } from 'zod';
import { resetPasswordBody } from '../../api/rules';
import { FormError, useApiForm } from '../../components/forms';
import { AuthLayout } from './AuthLayout';
import { resetPassword } from './api';

// The server's rule for the new password, plus the confirmation that only the form needs.
const schema = z
  .object({ password: resetPasswordBody.shape.password, confirm: z.string() })
  .refine((v) => v.password === v.confirm, { path: ['confirm'], message: 'The two passwords differ' });

/** `/reset-password?token=…` (the mailed link): sets a new password. */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const navigate = useNavigate();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { password: '', confirm: '' },
    schema,
    submit: (v) => resetPassword({ token, password: v.password }),
    onSuccess: () => navigate('/login?reset=done', { replace: true }),
  });
  const footer = (
    <Anchor component={Link} to="/login">
      Back to log in
    </Anchor>
  );
  if (!token) {
    return (
      <AuthLayout title="Choose a new password" footer={footer}>
        <Alert color="red" variant="light">
          This page needs the link from the reset mail.{' '}
          <Anchor component={Link} to="/forgot-password">
            Ask for a new link
          </Anchor>
          .
        </Alert>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Choose a new password" footer={footer}>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <PasswordInput
            label="New password"
            description="At least 8 characters"
            autoComplete="new-password"
            required
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            required
            key={form.key('confirm')}
            {...form.getInputProps('confirm')}
          />
          <FormError error={formError} />
          <Button type="submit" loading={mutation.isPending} fullWidth>
            Set new password
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
