import { Alert, Anchor, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { credentialsBody } from '../../api/rules';
import { ErrorAlert } from '../../components/ErrorAlert';
import { FormError, useApiForm } from '../../components/forms';
import { ContentSkeleton } from '../../components/Loading';
import { AuthLayout } from './AuthLayout';
import { api, unwrap } from '../../api/client';
import { authKeys, signup } from './api';
import { afterLoginPath, loginPath } from './paths';
import { SignupModeNotice } from './SignupModeNotice';
import { SsoButton, useSignInOptions } from './SsoButton';

/**
 * `/signup`: creates an account. On a server whose `SIGNUP` is `invite` it says so above the form; on
 * an `sso-only` server it offers single sign-on instead of a form that would be refused.
 */
export function SignupPage() {
  const config = useSignInOptions();
  const navigate = useNavigate();
  const location = useLocation();
  // `next` (the invitation a newcomer followed, say) goes through sign-up like through login.
  const next = afterLoginPath(location.search);
  const qc = useQueryClient();
  // The server answers a sign-up for an address that has an account like any other (so that nobody
  // learns which addresses have one) and mails that account's owner; only the session tells them apart.
  const [mailedOwner, setMailedOwner] = useState<string | null>(null);
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { email: '', password: '' },
    schema: credentialsBody,
    submit: signup,
    onSuccess: async (user) => {
      qc.clear();
      const me = await unwrap(api.GET('/users/@me')).catch(() => null);
      if (!me) return setMailedOwner(user.email);
      qc.setQueryData(authKeys.me, me);
      navigate(next, { replace: true });
    },
  });
  const footer = (
    <>
      Already have an account?{' '}
      <Anchor component={Link} to={loginPath(next)}>
        Log in
      </Anchor>
    </>
  );

  if (config.isPending)
    return (
      <AuthLayout title="Create your account" footer={footer}>
        <ContentSkeleton rows={2} />
      </AuthLayout>
    );
  if (config.isError)
    return (
      <AuthLayout title="Create your account" footer={footer}>
        <ErrorAlert error={config.error} onRetry={() => void config.refetch()} />
      </AuthLayout>
    );
  if (config.data.signup === 'sso-only') {
    return (
      <AuthLayout title="Create your account" footer={footer}>
        <SignupModeNotice mode="sso-only" providerName={config.data.oidc.name} />
        <SsoButton next={next} divider={false} />
      </AuthLayout>
    );
  }
  if (mailedOwner) {
    return (
      <AuthLayout title="Check your mailbox" footer={footer}>
        <Alert color="blue" variant="light" data-testid="signup-mailed-owner">
          We sent a message to {mailedOwner}. If this address already has a Pigeon account, the message says how to sign
          in or choose a new password.
        </Alert>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout
      title="Create your account"
      subtitle="Then create a project, add your sending domain and send your first email."
      footer={footer}
    >
      {config.data.signup === 'invite' && <SignupModeNotice mode="invite" providerName={config.data.oidc.name} />}
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
          <PasswordInput
            label="Password"
            description="At least 8 characters"
            autoComplete="new-password"
            required
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <FormError error={formError} />
          <Button type="submit" loading={mutation.isPending} fullWidth>
            Create account
          </Button>
        </Stack>
      </form>
      <SsoButton next={next} />
    </AuthLayout>
  );
}
