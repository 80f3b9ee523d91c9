import { Alert, Anchor, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useNavigate } from 'react-router';
import { credentialsBody } from '../../api/rules';
import { FormError, useApiForm } from '../../components/forms';
import { AuthLayout } from './AuthLayout';
import { authKeys, login } from './api';
import { afterLoginPath, signupPath } from './paths';
import { SsoButton, SsoErrorAlert } from './SsoButton';

/** `/login`: signs in and goes back to the page that asked for it (`?next=`). */
export function LoginPage() {
  const navigate = useNavigate();
  const location = useLocation();
  const qc = useQueryClient();
  const params = new URLSearchParams(location.search);
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { email: '', password: '' },
    schema: credentialsBody,
    submit: login,
    onSuccess: (user) => {
      qc.clear();
      qc.setQueryData(authKeys.me, user);
      navigate(afterLoginPath(location.search), { replace: true });
    },
  });
  return (
    <AuthLayout
      title="Log in to Pigeon"
      footer={
        <>
          No account yet?{' '}
          <Anchor component={Link} to={signupPath(afterLoginPath(location.search))}>
            Create one
          </Anchor>
        </>
      }
    >
      {params.get('next') && (
        <Alert variant="light" color="indigo" data-testid="login-reason">
          Log in to continue to the page you asked for.
        </Alert>
      )}
      {params.get('reset') === 'done' && (
        <Alert variant="light" color="teal">
          Your password was changed. Log in with the new one.
        </Alert>
      )}
      <SsoErrorAlert search={location.search} />
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
            autoComplete="current-password"
            required
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <FormError error={formError} />
          <Button type="submit" loading={mutation.isPending} fullWidth>
            Log in
          </Button>
          <Anchor component={Link} to="/forgot-password" size="sm" ta="center">
            Forgot your password?
          </Anchor>
        </Stack>
      </form>
      <SsoButton next={afterLoginPath(location.search)} />
    </AuthLayout>
  );
}
