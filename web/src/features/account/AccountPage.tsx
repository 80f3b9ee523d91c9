import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IconCircleCheck } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { z } from 'zod';
import { changeEmailBody, changePasswordBody } from '../../api/rules';
import { ErrorAlert } from '../../components/ErrorAlert';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { AppLayout } from '../../components/shell/AppLayout';
import { useMe } from '../auth/api';
import { changePassword, logoutEverywhere, requestEmailChange } from './api';

const passwordForm = changePasswordBody
  .extend({ confirm: z.string() })
  .refine((v) => v.newPassword === v.confirm, { path: ['confirm'], message: 'The two new passwords differ' });

// Mantine's PasswordInput marks an error with data-invalid only; aria-invalid tells assistive technology.

/** Change the password: the current one, the new one twice. */
function PasswordCard() {
  const [done, setDone] = useState(false);
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { currentPassword: '', newPassword: '', confirm: '' },
    schema: passwordForm,
    submit: (v) => changePassword({ currentPassword: v.currentPassword, newPassword: v.newPassword }),
    onSuccess: () => {
      setDone(true);
      form.reset();
    },
  });
  return (
    <Paper p="lg">
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md" maw={420}>
          <Title order={2} size="h4">
            Password
          </Title>
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            required
            key={form.key('currentPassword')}
            {...form.getInputProps('currentPassword')}
            aria-invalid={form.errors.currentPassword ? true : undefined}
          />
          <PasswordInput
            label="New password"
            description="At least 8 characters"
            autoComplete="new-password"
            required
            key={form.key('newPassword')}
            {...form.getInputProps('newPassword')}
            aria-invalid={form.errors.newPassword ? true : undefined}
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            required
            key={form.key('confirm')}
            {...form.getInputProps('confirm')}
            aria-invalid={form.errors.confirm ? true : undefined}
          />
          <FormError error={formError} />
          {done && !mutation.isPending && (
            <Alert color="teal" variant="light" icon={<IconCircleCheck size={18} />} data-testid="password-changed">
              Your password is changed. Other browsers signed in to this account were signed out.
            </Alert>
          )}
          <Button type="submit" loading={mutation.isPending} onClick={() => setDone(false)} w="fit-content">
            Change password
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}

/** Change the address: a link goes to the new one, which takes over once followed. */
function EmailCard({ email }: { email: string }) {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { newEmail: '', password: '' },
    schema: changeEmailBody,
    submit: requestEmailChange,
    onSuccess: (_r, v) => {
      setSentTo(v.newEmail.trim().toLowerCase());
      form.reset();
    },
  });
  return (
    <Paper p="lg">
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md" maw={420}>
          <Title order={2} size="h4">
            Email address
          </Title>
          <Text size="sm">
            You log in with <b>{email}</b>, and mail about your account goes there.
          </Text>
          <TextInput
            label="New email address"
            type="email"
            autoComplete="email"
            required
            key={form.key('newEmail')}
            {...form.getInputProps('newEmail')}
          />
          <PasswordInput
            label="Your password"
            description="To make sure it is you"
            autoComplete="current-password"
            required
            key={form.key('password')}
            {...form.getInputProps('password')}
            aria-invalid={form.errors.password ? true : undefined}
          />
          <FormError error={formError} />
          {sentTo && (
            <Alert color="blue" variant="light" data-testid="email-change-sent">
              We sent a link to {sentTo}. Your address changes when you open it (it works for 24 hours); until then you
              keep using {email}.
            </Alert>
          )}
          <Button type="submit" loading={mutation.isPending} w="fit-content">
            Send the confirmation link
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}

/** Log out everywhere: every session ends, this one too. */
function SessionsCard() {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const out = useMutation({
    mutationFn: logoutEverywhere,
    onSuccess: async () => {
      qc.clear();
      await navigate('/login', { replace: true });
    },
  });
  return (
    <Paper p="lg">
      <Stack gap="md" maw={520}>
        <Title order={2} size="h4">
          Sessions
        </Title>
        <Text size="sm">
          Signed in on a computer that is not yours, or lost a phone? Log out everywhere: every browser signed in to
          this account is signed out, this one included.
        </Text>
        {out.isError && <ErrorAlert error={out.error} title="Could not log out everywhere" />}
        <Button variant="default" color="red" loading={out.isPending} onClick={() => out.mutate()} w="fit-content">
          Log out everywhere
        </Button>
      </Stack>
    </Paper>
  );
}

/** `/account`: the signed-in person's own settings (not a project's): password, address, sessions. */
export function AccountPage() {
  const me = useMe();
  return (
    <AppLayout>
      <Stack maw={720} mx="auto" gap="lg">
        <PageHeader title="Your account" description="Your password, your email address and where you are signed in." />
        <Anchor component={Link} to="/account/security" size="sm">
          Two-factor sign-in, passkeys and your sessions
        </Anchor>
        <PasswordCard />
        {me.data && <EmailCard email={me.data.email} />}
        <SessionsCard />
      </Stack>
    </AppLayout>
  );
}
