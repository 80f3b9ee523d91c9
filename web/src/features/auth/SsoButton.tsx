import { Alert, Button, Divider, Stack } from '@mantine/core';
import { IconAlertTriangle, IconKey } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ssoRefusalSentence } from './ssoRefusal';

/** `GET /auth/oauth-config`: single sign-on (`oidc: {enabled, name}`) and who may sign up (`signup`). */
export function useSignInOptions() {
  return useQuery({
    queryKey: ['auth', 'sign-in-options'],
    queryFn: () => unwrap(api.GET('/auth/oauth-config')),
    staleTime: 5 * 60_000,
  });
}

/**
 * Where the single sign-on button goes: the server's `/auth/oidc/start` (outside the dashboard's
 * `/app/`), with the in-app path to land on afterwards.
 */
export function ssoStartHref(next: string): string {
  return next && next !== '/' ? `/auth/oidc/start?next=${encodeURIComponent(next)}` : '/auth/oidc/start';
}

/**
 * "Sign in with <OIDC_NAME>" when the server has single sign-on, else nothing. A plain link: the
 * browser itself goes to the provider and back (a full page navigation, not a fetch).
 * @param next the in-app path to return to after signing in (`afterLoginPath`).
 * @param divider whether to draw "or" above it (under a password form).
 */
export function SsoButton({ next, divider = true }: { next: string; divider?: boolean }) {
  const options = useSignInOptions();
  if (!options.data?.oidc.enabled) return null;
  return (
    <Stack gap="md">
      {divider && <Divider label="or" labelPosition="center" />}
      <Button
        component="a"
        href={ssoStartHref(next)}
        variant="default"
        fullWidth
        leftSection={<IconKey size={18} aria-hidden />}
        data-testid="sso-button"
      >
        Sign in with {options.data.oidc.name}
      </Button>
    </Stack>
  );
}

/**
 * Why the last single sign-on did not work: the refusal's code the server put in `?sso=` when it sent
 * the browser back to the login page, told as its sentence (ssoRefusal.ts). A link carries only the
 * code, so the page never shows words someone else wrote.
 */
export function SsoErrorAlert({ search }: { search: string }) {
  const options = useSignInOptions();
  const code = new URLSearchParams(search).get('sso');
  // The sentence names the provider: wait for its name (a failed read says "your identity provider").
  if (!code || options.isPending) return null;
  return (
    <Alert
      variant="light"
      color="red"
      title="Single sign-on did not complete"
      icon={<IconAlertTriangle size={18} aria-hidden />}
      role="alert"
      data-testid="sso-error"
    >
      {ssoRefusalSentence(code, options.data?.oidc.name)}
    </Alert>
  );
}
