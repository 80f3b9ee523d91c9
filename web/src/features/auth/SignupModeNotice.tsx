import { Alert } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';

/**
 * What the sign-up page says on a server whose `SIGNUP` is not `open` (GET /auth/oauth-config):
 * - `invite`: only an address with a pending invitation may sign up (the form stays, for them);
 * - `sso-only`: accounts come only from single sign-on (the page shows its button, no form).
 */
export function SignupModeNotice({ mode, providerName }: { mode: 'invite' | 'sso-only'; providerName: string }) {
  return (
    <Alert icon={<IconLock size={18} aria-hidden />} color="gray" variant="light" data-testid={`signup-mode-${mode}`}>
      {mode === 'invite'
        ? 'This Pigeon server makes accounts only for invited people. Sign up with the address your invitation was sent to, or ask a project’s administrator to invite you.'
        : `This Pigeon server makes accounts only through ${providerName}. Sign in with ${providerName} below: your account is created the first time.`}
    </Alert>
  );
}
