import { Alert, Anchor, Button, Divider, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { credentialsBody } from '../../api/rules';
import { FormError, useApiForm } from '../../components/forms';
import { AuthLayout } from './AuthLayout';
import { ErrorAlert } from '../../components/ErrorAlert';
import { authKeys, login } from './api';
import { signInWithPasskey, type SecondStepChallenge } from './factors-api';
import { SecondStep } from './SecondStep';
import { afterLoginPath, signupPath } from './paths';
import { SsoButton, SsoErrorAlert } from './SsoButton';

/** `/login`: signs in and goes back to the page that asked for it (`?next=`). */
export function LoginPage() {
  const navigate = useNavigate();
  const location = useLocation();
  const qc = useQueryClient();
  const params = new URLSearchParams(location.search);
  // Set when the password was right and the account asks for a second step.
  const [challenge, setChallenge] = useState<SecondStepChallenge | null>(null);
  const signedIn = (user: Awaited<ReturnType<typeof signInWithPasskey>>) => {
    qc.clear();
    qc.setQueryData(authKeys.me, user);
    navigate(afterLoginPath(location.search), { replace: true });
  };
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { email: '', password: '' },
    schema: credentialsBody,
    submit: login,
    onSuccess: (answer) => ('twoFactor' in answer ? setChallenge(answer.twoFactor) : signedIn(answer)),
  });
  const passkey = useMutation({ mutationFn: signInWithPasskey, onSuccess: signedIn });
  if (challenge)
    return (
      <AuthLayout title="Two-factor sign-in">
        <SecondStep
          challenge={challenge}
          onSignedIn={signedIn}
          onRestart={() => {
            setChallenge(null);
            form.setFieldValue('password', '');
          }}
        />
      </AuthLayout>
    );
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
      <Divider label="or" labelPosition="center" />
      <Button variant="default" fullWidth loading={passkey.isPending} onClick={() => passkey.mutate()}>
        Sign in with a passkey
      </Button>
      {passkey.isError && <ErrorAlert error={passkey.error} title="The passkey did not sign you in" />}
      <SsoButton next={afterLoginPath(location.search)} divider={false} />
    </AuthLayout>
  );
}
