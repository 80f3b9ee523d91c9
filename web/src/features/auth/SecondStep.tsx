import { Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert';
import { verifyCode, verifyWithPasskey, type SecondStepChallenge } from './factors-api';

type User = Awaited<ReturnType<typeof verifyCode>>;

/**
 * The second step of a sign-in: the six-digit code of the authenticator app, or a recovery code, or
 * the account's passkey. `onSignedIn` gets the user once the session is open; `onRestart` goes back to
 * the password (the step's token lasts 5 minutes and dies after a few wrong codes).
 */
export function SecondStep(props: {
  challenge: SecondStepChallenge;
  onSignedIn: (user: User) => void;
  onRestart: () => void;
}) {
  const { challenge } = props;
  const hasCode = challenge.methods.includes('totp');
  const [recovery, setRecovery] = useState(!hasCode);
  const [value, setValue] = useState('');
  const submit = useMutation({
    mutationFn: () => verifyCode(challenge.token, recovery ? { recoveryCode: value } : { code: value }),
    onSuccess: props.onSignedIn,
    onError: () => setValue(''),
  });
  const passkey = useMutation({ mutationFn: () => verifyWithPasskey(challenge), onSuccess: props.onSignedIn });
  return (
    <Stack gap="md" data-testid="second-step">
      {hasCode && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit.mutate();
          }}
          noValidate
        >
          <Stack gap="md">
            <Text size="sm">
              {recovery
                ? 'Enter one of the recovery codes you saved when you set up two-factor sign-in. Each works once.'
                : 'Open your authenticator app and enter the six-digit code it shows for Pigeon.'}
            </Text>
            <TextInput
              label={recovery ? 'Recovery code' : 'Code from your app'}
              autoComplete="one-time-code"
              inputMode={recovery ? 'text' : 'numeric'}
              maxLength={recovery ? 32 : 6}
              data-autofocus
              value={value}
              onChange={(e) => setValue(e.currentTarget.value)}
            />
            {submit.isError && <ErrorAlert error={submit.error} title="That did not work" />}
            <Button type="submit" loading={submit.isPending} disabled={!value.trim()} fullWidth>
              Verify
            </Button>
            <Anchor
              component="button"
              type="button"
              size="sm"
              onClick={() => {
                setRecovery(!recovery);
                setValue('');
              }}
            >
              {recovery ? 'Use the code from your app' : 'Use a recovery code'}
            </Anchor>
          </Stack>
        </form>
      )}
      {challenge.methods.includes('passkey') && (
        <>
          <Button
            variant={hasCode ? 'default' : 'filled'}
            onClick={() => passkey.mutate()}
            loading={passkey.isPending}
            fullWidth
          >
            Use your passkey
          </Button>
          {passkey.isError && <ErrorAlert error={passkey.error} title="The passkey did not work" />}
        </>
      )}
      <Anchor component="button" type="button" size="sm" c="dimmed" onClick={props.onRestart}>
        Start again with your password
      </Anchor>
    </Stack>
  );
}
