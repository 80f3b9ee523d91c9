/**
 * The login page's URL that brings the person back to `intended` (an in-app path such as
 * `/p/…/domains?x=1`) after signing in.
 */
export function loginPath(intended?: string): string {
  if (!intended || intended === '/' || intended.startsWith('/login')) return '/login';
  return `/login?next=${encodeURIComponent(intended)}`;
}

/**
 * Where to go after signing in: the `next` parameter when it is an in-app path (one leading slash:
 * never another site, `//evil.example` is refused), else the start page.
 */
export function afterLoginPath(search: string): string {
  const next = new URLSearchParams(search).get('next');
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

/** The sign-up page's URL that, like {@link loginPath}, brings the new user to `intended` afterwards. */
export function signupPath(intended?: string): string {
  return loginPath(intended).replace(/^\/login/, '/signup');
}
