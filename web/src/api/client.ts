import createClient, { type Middleware } from 'openapi-fetch';
import { withEarlyAnswers } from './early';
import { apiErrorFrom, networkError } from './errors';
import type { paths } from './schema';

/**
 * The typed client of Pigeon's API, generated from the server's own `/openapi.json`
 * (`npm run gen:api` writes `schema.d.ts`; a test fails when it is stale). Same origin, so the
 * `session` cookie goes with every call. Use it through {@link unwrap}:
 *
 * ```ts
 * const domains = await unwrap(api.GET('/domains/project/{projectId}', {
 *   params: { path: { projectId } }, headers: inProject(projectId),
 * }));
 * ```
 */
export const api = createClient<paths>({
  baseUrl: '',
  credentials: 'same-origin',
  // The first screen's requests may already be under way (public/early-requests.js).
  fetch: withEarlyAnswers((req) => globalThis.fetch(req)),
});

/** Called when a call answers 401 for lack of a session (set once by the router: go to the login page). */
let onUnauthenticated: (() => void) | undefined;

/** Sets what happens when any call answers 401 without a valid session. */
export function setUnauthenticatedHandler(handler: () => void): void {
  onUnauthenticated = handler;
}

// The login and signup forms answer 401 INVALID_CREDENTIALS for a wrong password: that is the form's
// business. Any other 401 means the session is gone, wherever it happens.
const sessionGuard: Middleware = {
  async onResponse({ response }) {
    if (response.status !== 401 || !onUnauthenticated) return undefined;
    const body = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { error?: { code?: string } } | undefined;
    if (body?.error?.code !== 'INVALID_CREDENTIALS') onUnauthenticated();
    return undefined;
  },
};
api.use(sessionGuard);

/**
 * The header that scopes a session call to a project (the server checks the caller is a member and
 * answers 404 otherwise). Every project-scoped call passes it: `headers: inProject(projectId)`.
 */
export const inProject = (projectId: string): { 'X-Project-Id': string } => ({ 'X-Project-Id': projectId });

type Answer<D> = { data?: D; error?: unknown; response: Response };

/**
 * The data of a successful call, typed by the OpenAPI schema.
 * @throws ApiError for a non-2xx answer (with the server's message, code, request id and field
 * errors) or when the server could not be reached (`status` 0).
 */
export async function unwrap<D>(call: Promise<Answer<D>>): Promise<D> {
  let answer: Answer<D>;
  try {
    answer = await call;
  } catch (err) {
    throw networkError(err);
  }
  if (!answer.response.ok) throw apiErrorFrom(answer.response, answer.error);
  return answer.data as D;
}

/**
 * {@link unwrap} for the routes whose response schema the server does not declare yet (their data is
 * `never` in the generated types): `T` is a local type that mirrors the server's answer. Once the
 * route declares its schema and the types are regenerated, switch the call to {@link unwrap}.
 */
export async function unwrapAs<T>(call: Promise<Answer<unknown>>): Promise<T> {
  return (await unwrap(call)) as T;
}
