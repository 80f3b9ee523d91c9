import { Box, Button, Code, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { renderSVG } from 'uqr';
import { ErrorAlert } from '../../components/ErrorAlert';
import { QueryState } from '../../components/QueryState';
import { StatusBadge } from '../../components/StatusBadge';
import { RecoveryCodes } from './RecoveryCodes';
import {
  confirmTotp,
  disableTotp,
  regenerateRecoveryCodes,
  securityKeys,
  startTotp,
  useTotpStatus,
} from './security-api';

/** A code field with a button, for confirming, turning off or regenerating. */
function CodeForm(props: {
  label: string;
  description: string;
  submitLabel: string;
  color?: string;
  onSubmit: (code: string) => Promise<unknown>;
  onDone: (result: unknown) => void;
}) {
  const [code, setCode] = useState('');
  const run = useMutation({ mutationFn: () => props.onSubmit(code), onSuccess: (r) => props.onDone(r) });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        run.mutate();
      }}
      noValidate
    >
      <Stack gap="sm" maw={360}>
        <TextInput
          label={props.label}
          description={props.description}
          autoComplete="one-time-code"
          inputMode="text"
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          error={run.isError ? 'That code did not work. Enter the current one.' : undefined}
        />
        {run.isError && <ErrorAlert error={run.error} />}
        <Button type="submit" color={props.color} loading={run.isPending} disabled={!code.trim()} w="fit-content">
          {props.submitLabel}
        </Button>
      </Stack>
    </form>
  );
}

/** Set-up in progress: the QR code, the secret as text, and the confirmation code. */
function Enrol({ secret, uri, onCodes }: { secret: string; uri: string; onCodes: (codes: string[]) => void }) {
  return (
    <Stack gap="md">
      <Text size="sm">
        Scan this QR code with an authenticator app (such as 1Password, Google Authenticator or Aegis), or type the key
        in by hand. Then enter the six-digit code the app shows.
      </Text>
      <Group align="flex-start" gap="lg">
        <Box
          w={180}
          h={180}
          bg="white"
          p={6}
          role="img"
          aria-label="QR code for your authenticator app"
          data-testid="totp-qr"
          dangerouslySetInnerHTML={{ __html: renderSVG(uri) }}
        />
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Key
          </Text>
          <Code data-testid="totp-secret" style={{ wordBreak: 'break-all' }}>
            {secret}
          </Code>
        </Stack>
      </Group>
      <CodeForm
        label="Code from the app"
        description="Six digits"
        submitLabel="Turn on two-factor sign-in"
        onSubmit={(code) => confirmTotp(code)}
        onDone={(r) => onCodes((r as { recoveryCodes: string[] }).recoveryCodes)}
      />
    </Stack>
  );
}

/** Account → Security: two-factor sign-in with an authenticator app (TOTP) and its recovery codes. */
export function TwoFactorCard() {
  const qc = useQueryClient();
  const status = useTotpStatus();
  const [enrolment, setEnrolment] = useState<{ secret: string; uri: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [action, setAction] = useState<'off' | 'codes' | null>(null);
  const start = useMutation({ mutationFn: startTotp, onSuccess: setEnrolment });
  // Confirming makes this session two-factor: the sessions list (and a project's requirement) changes too.
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: securityKeys.totp });
    void qc.invalidateQueries({ queryKey: securityKeys.sessions });
  };
  const showCodes = (c: string[]) => {
    setEnrolment(null);
    setAction(null);
    setCodes(c);
    refresh();
  };
  return (
    <Paper p="lg">
      <Stack gap="md">
        <Group justify="space-between">
          <Title order={2} size="h4">
            Two-factor sign-in
          </Title>
          {status.data && (
            <StatusBadge tone={status.data.enabled ? 'success' : 'neutral'}>
              {status.data.enabled ? 'On' : 'Off'}
            </StatusBadge>
          )}
        </Group>
        <QueryState query={status}>
          {(s) =>
            codes ? (
              <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
            ) : enrolment ? (
              <Enrol {...enrolment} onCodes={showCodes} />
            ) : !s.enabled ? (
              <Stack gap="sm">
                <Text size="sm">
                  After your password, sign-in asks for a code from an app on your phone, so a stolen password alone is
                  not enough.
                </Text>
                {start.isError && <ErrorAlert error={start.error} />}
                <Button onClick={() => start.mutate()} loading={start.isPending} w="fit-content">
                  Set up two-factor sign-in
                </Button>
              </Stack>
            ) : (
              <Stack gap="sm">
                <Text size="sm">
                  Sign-in asks for a code from your authenticator app. {s.recoveryCodesLeft} of 10 recovery codes are
                  left.
                </Text>
                <Group gap="sm">
                  <Button variant="default" onClick={() => setAction(action === 'codes' ? null : 'codes')}>
                    New recovery codes
                  </Button>
                  <Button variant="default" color="red" onClick={() => setAction(action === 'off' ? null : 'off')}>
                    Turn off
                  </Button>
                </Group>
                {action === 'codes' && (
                  <CodeForm
                    key="codes"
                    label="Code from the app, or a recovery code"
                    description="To make sure it is you; the old recovery codes stop working"
                    submitLabel="Make new recovery codes"
                    onSubmit={regenerateRecoveryCodes}
                    onDone={(r) => showCodes((r as { recoveryCodes: string[] }).recoveryCodes)}
                  />
                )}
                {action === 'off' && (
                  <CodeForm
                    key="off"
                    label="Code from the app, or a recovery code"
                    description="Sign-in then asks for your password only"
                    submitLabel="Turn off two-factor sign-in"
                    color="red"
                    onSubmit={disableTotp}
                    onDone={() => {
                      setAction(null);
                      refresh();
                    }}
                  />
                )}
              </Stack>
            )
          }
        </QueryState>
      </Stack>
    </Paper>
  );
}
