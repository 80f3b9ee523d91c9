import { Alert, Anchor, Button, Stack, TextInput } from '@mantine/core';
import { IconMailCheck } from '@tabler/icons-react';
import { Link } from 'react-router';
import { requestResetBody } from '../../api/rules';
import { FormError, useApiForm } from '../../components/forms';
import { AuthLayout } from './AuthLayout';
import { requestPasswordReset } from './api';

/** `/forgot-password`: mails a reset link. The answer is the same whether the account exists or not. */
export function ForgotPasswordPage() {
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { email: '' },
    schema: requestResetBody,
    submit: requestPasswordReset,
  });
  return (
    <AuthLayout
      title="Reset your password"
      subtitle="We will mail you a link to choose a new password."
      footer={
        <Anchor component={Link} to="/login">
          Back to log in
        </Anchor>
      }
    >
      {mutation.isSuccess ? (
        <Alert icon={<IconMailCheck size={18} />} color="teal" variant="light" data-testid="reset-requested">
          If an account exists for {mutation.variables?.email}, a reset link is on its way. It is valid for one hour.
        </Alert>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="md">
            <TextInput
              label="Email"
              type="email"
              autoComplete="email"
              required
              key={form.key('email')}
              {...form.getInputProps('email')}
            />
            <FormError error={formError} />
            <Button type="submit" loading={mutation.isPending} fullWidth>
              Send reset link
            </Button>
          </Stack>
        </form>
      )}
    </AuthLayout>
  );
}
