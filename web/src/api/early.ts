/**
 * The answers to requests `public/early-requests.js` started before the app's code had loaded (the
 * session, the project list, the first page of the screen opened). Each is handed out once, to the
 * first app request with the same method, path, query and `X-Project-Id`; any later or different
 * request goes to the network. An answer older than {@link EARLY_MAX_AGE_MS} is not used: the app
 * asks again rather than show data from before a slow start; none is used after the app's first
 * write (POST, PATCH, PUT, DELETE), which may have changed the session they were asked with.
 */
interface Early {
  /** When the request was started (ms since the epoch). */
  at: number;
  response: Promise<Response>;
}

declare global {
  interface Window {
    __pigeonEarly?: Record<string, Early>;
  }
}

/** How old (ms) an early answer may be and still be used. */
export const EARLY_MAX_AGE_MS = 5_000;

/** The key early-requests.js files a request under: `GET /path?query <project id or ''>`. */
function keyOf(req: Request): string {
  const url = new URL(req.url);
  return `${req.method} ${url.pathname}${url.search} ${req.headers.get('x-project-id') ?? ''}`;
}

/**
 * A `fetch` for openapi-fetch that answers from an early request when one matches, else calls
 * `next`. The early answer is removed as it is taken, so a refetch always reaches the server.
 */
export function withEarlyAnswers(next: (req: Request) => Promise<Response>): (req: Request) => Promise<Response> {
  return (req) => {
    const started = typeof window === 'undefined' ? undefined : window.__pigeonEarly;
    if (!started) return next(req);
    if (req.method !== 'GET') {
      // A write may change who is signed in (sign-up, log-in, log-out) or what the early answers
      // hold: none of them may be used after it. Without this, signing up within seconds of opening
      // the login page got the page load's 401 for the project list and was sent back to log in.
      window.__pigeonEarly = undefined;
      return next(req);
    }
    const key = keyOf(req);
    const early = started[key];
    if (!early) return next(req);
    delete started[key];
    if (Date.now() - early.at > EARLY_MAX_AGE_MS) return next(req);
    // A network failure of the early request is retried by the app's own request.
    return early.response.catch(() => next(req));
  };
}
