import { and, eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { memberships, projects, sessions } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { sha256 } from '../lib/crypto.js';
import { liveSessionCondition, touchSession } from '../users/sessions.js';
import { keyCacheFor, type KeyProject } from './key-cache.js';
import { isUuid } from '../lib/ids.js';
import { checkScopedKey, noteKeyUse, SCOPED_KEY_PREFIX, scopedKeyByToken } from '../keys/key-auth.js';
import { AppError } from './errors.js';
import { sessionCookieName, verifySession, type SessionClaims } from './session.js';

/**
 * Who may call a route:
 * - `none`: anyone (`GET /config`, tracking links, `/auth/*` entry points);
 * - `session`: the session cookie (`/users/@me*`);
 * - `public`: the project's public key only (`POST /v1/track`);
 * - `secret`: the secret key only (`/v1/send`, `/v1/verify`);
 * - `dashboard`: the secret key, or the session cookie with `X-Project-Id` of a project the user is in;
 * - `member`: the project named by the `:id` path parameter, through the session cookie of one of its
 *   members only (role from the membership). Never an API key: these routes manage members, keys,
 *   billing and the project itself, and a leaked `sk_` must not be able to add its holder as a member
 *   (who would survive the key's rotation) or rotate the owner's keys;
 * - `member-or-key`: as `member`, or that project's secret key (role ADMIN); for read-only overviews
 *   that show nothing the key cannot already read (setup state, security summary).
 * Session calls are not counted against the rate limit, so `projectId` is only set for
 * key calls in the last two modes.
 *
 * A scoped key (`psk_…`, src/keys) is taken where the secret key is (`secret`, `dashboard`) and on
 * `POST /v1/track`, for the routes of the scope table (keys/scopes.ts) whose scope it holds; `member`
 * and `member-or-key` routes refuse it (403).
 */
export type AuthMode = 'none' | 'session' | 'public' | 'secret' | 'dashboard' | 'member' | 'member-or-key';
export type Role = 'OWNER' | 'ADMIN' | 'MEMBER';

/** The resolved caller of a request. */
export interface RequestAuth {
  /** Set for every mode but `none` and `session`. */
  projectId?: string;
  via: 'public' | 'secret' | 'session' | 'none';
  userId?: string;
  /** The `sessions` row of a session call. */
  sessionId?: string;
  /**
   * The caller's role in the project: the member's for a session with a project; `ADMIN` for the
   * project's secret key (it manages the project's resources, but not its owners, billing or deletion).
   */
  role?: Role;
  /** Set for a scoped API key (`api_keys`, issue 39): the route's scope was checked against `scopes`. */
  key?: { id: string; name: string; scopes: string[] };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
    /**
     * Roles allowed on the route (only OWNER deletes, resets or bills; OWNER and ADMIN
     * manage members and keys). Checked right after authentication, before the body is parsed or
     * validated, so a caller without the role learns nothing of the route's schema.
     */
    roles?: Role[];
    /** Honour `Idempotency-Key`. */
    idempotent?: boolean;
    /**
     * A `member` route whose `:userId` may be the caller's own even in a session a project's two-factor
     * requirement turns away: leaving a project must not need a second factor one does not want.
     */
    selfWithoutTwoFactor?: boolean;
  }
  interface FastifyRequest {
    auth: RequestAuth;
  }
}

const invalidKey = () =>
  new AppError('INVALID_API_KEY', 'Missing, invalid or wrong type of API key', {
    suggestion:
      'Send Authorization: Bearer <key>. /v1/track takes the public key (pk_…); every other endpoint the secret key (sk_…); either may take a scoped key (psk_…) holding the scope of the endpoint.',
  });

/** 403 for a member of a project that requires two-factor sign-in, in a password-only session. */
const twoFactorRequired = () =>
  new AppError(
    'TWO_FACTOR_REQUIRED',
    'This project requires two-factor sign-in. Set up an authenticator app or a passkey under Account → Security, then sign in again.',
    { suggestion: 'Set it up with POST /users/@me/totp or POST /users/@me/passkeys, then sign in with it.' },
  );

const signInFirst = () => new AppError('UNAUTHORIZED', 'Sign in first: no valid session cookie');

function bearer(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}

/** A live session: its user, and with a project asked for, the user's role there (null: not a member). */
interface LiveSession {
  userId: string;
  sessionId: string;
  role: Role | null;
  /** The project's `disabled` flag when the user is a member. */
  disabled: boolean | null;
  /** The project requires two-factor sign-in and this session signed in with a password alone. */
  lacksTwoFactor: boolean;
}

/**
 * The verified claims of the request's session cookie, or null (none, forged, expired). No I/O: the
 * session it names may have ended (log out takes it as it is, to end it).
 */
export async function cookieClaims(deps: Deps, req: FastifyRequest): Promise<SessionClaims | null> {
  const token = req.cookies?.[sessionCookieName(deps.config.PUBLIC_URL)];
  const claims = token ? await verifySession(deps.secret, token, deps.clock.now()) : null;
  return claims && isUuid(claims.userId) && isUuid(claims.sessionId) ? claims : null;
}

/**
 * The live session of verified `claims`, or null when its row says it ended (users/sessions.ts:
 * logged out, revoked, expired, idle too long) or the user is gone. One indexed query, which also
 * fetches the membership in `projectId` when given, so that checking the session adds no round trip to
 * project calls; a second, rare write slides the idle timeout.
 */
async function liveSession(deps: Deps, claims: SessionClaims | null, projectId?: string): Promise<LiveSession | null> {
  if (!claims) return null;
  const now = deps.clock.now();
  const base = { lastSeenAt: sessions.lastSeenAt, method: sessions.method };
  const where = and(
    eq(sessions.id, claims.sessionId),
    eq(sessions.userId, claims.userId),
    liveSessionCondition(deps, now),
  );
  const [row] = projectId
    ? await deps.db
        .select({ ...base, role: memberships.role, disabled: projects.disabled, require2fa: projects.require2fa })
        .from(sessions)
        .leftJoin(memberships, and(eq(memberships.userId, sessions.userId), eq(memberships.projectId, projectId)))
        .leftJoin(projects, eq(projects.id, memberships.projectId))
        .where(where)
        .limit(1)
    : await deps.db.select(base).from(sessions).where(where).limit(1);
  if (!row) return null;
  await touchSession(deps.db, claims.sessionId, row.lastSeenAt, now);
  const r = row as { role?: Role | null; disabled?: boolean | null; require2fa?: boolean | null };
  return {
    userId: claims.userId,
    sessionId: claims.sessionId,
    role: r.role ?? null,
    disabled: r.disabled ?? null,
    // Any other method (a TOTP or recovery code, a passkey, SSO) meets the requirement.
    lacksTwoFactor: r.require2fa === true && row.method === 'password',
  };
}

/**
 * The live session the request's cookie names, or null: for the routes that take a session without
 * requiring one (`/auth/*`: logout, e-mail verification).
 */
export async function requestSession(
  deps: Deps,
  req: FastifyRequest,
): Promise<{ userId: string; sessionId: string } | null> {
  const s = await liveSession(deps, await cookieClaims(deps, req));
  return s && { userId: s.userId, sessionId: s.sessionId };
}

/**
 * Resolves an API key to its project by its SHA-256 (keys are never stored): from the process's key
 * cache, invalidated through LISTEN/NOTIFY on every change (key-cache.ts), else one indexed look-up.
 * Exported for the SMTP submission server, whose AUTH password is the secret key.
 * @returns the project (check its `disabled`), or null for an unknown key.
 */
export async function projectByKey(deps: Deps, key: string, type: 'public' | 'secret'): Promise<KeyProject | null> {
  const hash = sha256(key);
  return keyCacheFor(deps.pool).lookup(`${type}:${hash}`, async () => {
    const [row] = await deps.db
      .select({ id: projects.id, disabled: projects.disabled })
      .from(projects)
      .where(type === 'public' ? eq(projects.publicKeyHash, hash) : eq(projects.secretKeyHash, hash))
      .limit(1);
    return row ?? null;
  });
}

async function authenticate(deps: Deps, req: FastifyRequest, mode: AuthMode): Promise<RequestAuth> {
  if (mode === 'none') return { via: 'none' };
  if (mode === 'session') {
    const s = await liveSession(deps, await cookieClaims(deps, req));
    if (!s) throw signInFirst();
    return { via: 'session', userId: s.userId, sessionId: s.sessionId };
  }
  if (mode === 'member' || mode === 'member-or-key') return authenticateMember(deps, req, mode === 'member-or-key');
  const key = bearer(req);
  if (key?.startsWith(SCOPED_KEY_PREFIX)) return authenticateScopedKey(deps, req, key, mode);
  if (key) {
    const type = key.startsWith('pk_') ? 'public' : key.startsWith('sk_') ? 'secret' : null;
    const wanted = mode === 'public' ? 'public' : 'secret';
    if (type !== wanted) throw invalidKey();
    const project = await projectByKey(deps, key, type);
    if (!project) throw invalidKey();
    if (project.disabled) throw new AppError('PROJECT_DISABLED', 'This project is disabled');
    return type === 'secret'
      ? { via: type, projectId: project.id, role: 'ADMIN' }
      : { via: type, projectId: project.id };
  }
  const claims = mode === 'dashboard' ? await cookieClaims(deps, req) : null;
  if (claims) {
    const header = req.headers['x-project-id'];
    const projectId = Array.isArray(header) ? header[0] : header;
    if (!projectId) {
      throw new AppError('BAD_REQUEST', 'X-Project-Id header is required with a session cookie', {
        suggestion: 'Send X-Project-Id: <project uuid>, or use the project secret key.',
      });
    }
    if (!isUuid(projectId)) throw new AppError('RESOURCE_NOT_FOUND', 'Project not found');
    const s = await liveSession(deps, claims, projectId);
    if (s) {
      // Not a member: 404, never 403 (do not reveal that the project exists).
      if (!s.role) throw new AppError('RESOURCE_NOT_FOUND', 'Project not found');
      if (s.disabled) throw new AppError('PROJECT_DISABLED', 'This project is disabled');
      if (s.lacksTwoFactor) throw twoFactorRequired();
      return { via: 'session', projectId, userId: s.userId, role: s.role };
    }
  }
  throw invalidKey();
}

/**
 * A scoped key on a `public`, `secret` or `dashboard` route: its project, then its lifetime, client
 * address and the route's scope (keys/key-auth.ts `checkScopedKey`), all before the body is read.
 * It acts with the secret key's ADMIN role (on `POST /v1/track` as the public key) within its scopes.
 */
async function authenticateScopedKey(
  deps: Deps,
  req: FastifyRequest,
  token: string,
  mode: AuthMode,
): Promise<RequestAuth> {
  const project = await scopedKeyByToken(deps, token);
  if (!project?.key) throw invalidKey();
  if (project.disabled) throw new AppError('PROJECT_DISABLED', 'This project is disabled');
  // Fastify answers HEAD with the GET route: the same scope.
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  checkScopedKey(project.key, req.ip, method, req.routeOptions.url ?? req.url, deps.clock.now());
  noteKeyUse(deps, project.key.id);
  const key = { id: project.key.id, name: project.key.name, scopes: project.key.scopes };
  return mode === 'public'
    ? { via: 'public', projectId: project.id, key }
    : { via: 'secret', projectId: project.id, role: 'ADMIN', key };
}

async function authenticateMember(deps: Deps, req: FastifyRequest, keyAllowed: boolean): Promise<RequestAuth> {
  const projectId = (req.params as { id?: string }).id;
  const key = bearer(req);
  const hasCookie = Boolean(req.cookies?.[sessionCookieName(deps.config.PUBLIC_URL)]);
  if (key?.startsWith(SCOPED_KEY_PREFIX) && !hasCookie) {
    throw new AppError('FORBIDDEN', "Scoped API keys cannot call this endpoint: it takes a project member's session", {
      details: { route: `${req.method} ${req.routeOptions.url ?? req.url}` },
      suggestion: 'Sign in with POST /auth/login and send the session cookie.',
    });
  }
  if (key && keyAllowed && !key.startsWith(SCOPED_KEY_PREFIX)) {
    if (!key.startsWith('sk_')) throw invalidKey();
    const project = await projectByKey(deps, key, 'secret');
    if (!project) throw invalidKey();
    if (project.id !== projectId) throw new AppError('RESOURCE_NOT_FOUND', 'Project not found');
    return { via: 'secret', projectId: project.id, role: 'ADMIN' };
  }
  if (key && !hasCookie) {
    throw new AppError(
      'UNAUTHORIZED',
      'This endpoint takes the session cookie of a project member; API keys are not accepted',
      {
        suggestion: 'Sign in with POST /auth/login and send the session cookie.',
      },
    );
  }
  const claims = await cookieClaims(deps, req);
  if (!claims) throw signInFirst();
  if (!isUuid(projectId)) throw new AppError('RESOURCE_NOT_FOUND', 'Project not found');
  const s = await liveSession(deps, claims, projectId);
  if (!s) throw signInFirst();
  if (!s.role) throw new AppError('RESOURCE_NOT_FOUND', 'Project not found');
  const self = (req.params as { userId?: string }).userId === s.userId;
  if (s.lacksTwoFactor && !(self && req.routeOptions.config.selfWithoutTwoFactor)) throw twoFactorRequired();
  return { via: 'session', userId: s.userId, sessionId: s.sessionId, role: s.role };
}

/**
 * @throws AppError 403 FORBIDDEN unless the caller's role is one of `roles` (only OWNER deletes,
 * resets or bills; OWNER and ADMIN manage members and keys). Routes declare this as
 * `config.roles`; call it directly only for a rule that depends on more than the route.
 */
export function requireRole(req: FastifyRequest, ...roles: Role[]): void {
  if (!req.auth.role || !roles.includes(req.auth.role)) {
    throw new AppError('FORBIDDEN', `This needs the ${roles.join(' or ')} role in the project`);
  }
}

/**
 * Installs the `onRequest` hook that authenticates every route by its `config.auth` (default
 * `dashboard`) and then checks its `config.roles`: both before the body is read, so authorization
 * always comes before validation.
 */
export function registerAuth(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('auth', null as unknown as RequestAuth);
  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config;
    const mode = config?.auth ?? (req.routeOptions.url ? 'dashboard' : 'none');
    req.auth = await authenticate(deps, req, mode);
    if (config?.roles) requireRole(req, ...config.roles);
  });
}

/** The project of an authenticated request. @throws AppError 401 when the route has none. */
export function projectOf(req: FastifyRequest): string {
  if (!req.auth?.projectId) throw invalidKey();
  return req.auth.projectId;
}
