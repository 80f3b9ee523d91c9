import { and, eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { memberships, projects } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { sha256 } from '../lib/crypto.js';
import { isUuid } from '../lib/ids.js';
import { AppError } from './errors.js';
import { SESSION_COOKIE, verifySession } from './session.js';

/**
 * Who may call a route (api.md §5, decisions.md: dashboard authentication):
 * - `none`: anyone (`GET /config`, tracking links, `/auth/*` entry points);
 * - `session`: the session cookie (`/users/@me*`);
 * - `public`: the project's public key only (`POST /v1/track`);
 * - `secret`: the secret key only (`/v1/send`, `/v1/verify`);
 * - `dashboard`: the secret key, or the session cookie with `X-Project-Id` of a project the user is in;
 * - `member`: a project named by the `:id` path parameter, through the session cookie of a member
 *   (role from the membership) or that project's secret key (role ADMIN). Session calls are not
 *   counted against the rate limit (decisions.md), so `projectId` is only set for key calls.
 */
export type AuthMode = 'none' | 'session' | 'public' | 'secret' | 'dashboard' | 'member';
export type Role = 'OWNER' | 'ADMIN' | 'MEMBER';

/** The resolved caller of a request. */
export interface RequestAuth {
  /** Set for every mode but `none` and `session`. */
  projectId?: string;
  via: 'public' | 'secret' | 'session' | 'none';
  userId?: string;
  /** The member's role when `via` is `session` with a project. */
  role?: Role;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** Honour `Idempotency-Key` (decisions.md: idempotency). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    auth: RequestAuth;
  }
}

const invalidKey = () =>
  new AppError('INVALID_API_KEY', 'Missing, invalid or wrong type of API key', {
    suggestion: 'Send Authorization: Bearer <key>. /v1/track takes the public key (pk_…); every other endpoint the secret key (sk_…).',
  });

function bearer(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}

/** The user id of the request's session cookie, or null. */
export async function sessionUser(deps: Deps, req: FastifyRequest): Promise<string | null> {
  const token = req.cookies?.[SESSION_COOKIE];
  return token ? verifySession(deps.secret, token, deps.clock.now()) : null;
}

/** Resolves an API key to its project: one indexed look-up of its SHA-256 (keys are never stored). */
async function projectByKey(deps: Deps, key: string, type: 'public' | 'secret') {
  const hash = sha256(key);
  const [row] = await deps.db
    .select({ id: projects.id, disabled: projects.disabled })
    .from(projects)
    .where(type === 'public' ? eq(projects.publicKeyHash, hash) : eq(projects.secretKeyHash, hash))
    .limit(1);
  return row ?? null;
}

async function authenticate(deps: Deps, req: FastifyRequest, mode: AuthMode): Promise<RequestAuth> {
  if (mode === 'none') return { via: 'none' };
  if (mode === 'session') {
    const userId = await sessionUser(deps, req);
    if (!userId) throw new AppError('UNAUTHORIZED', 'Sign in first: no valid session cookie');
    return { via: 'session', userId };
  }
  if (mode === 'member') return authenticateMember(deps, req);
  const key = bearer(req);
  if (key) {
    const type = key.startsWith('pk_') ? 'public' : key.startsWith('sk_') ? 'secret' : null;
    const wanted = mode === 'public' ? 'public' : 'secret';
    if (type !== wanted) throw invalidKey();
    const project = await projectByKey(deps, key, type);
    if (!project) throw invalidKey();
    if (project.disabled) throw new AppError('PROJECT_DISABLED', 'This project is disabled');
    return { via: type, projectId: project.id };
  }
  if (mode === 'dashboard') {
    const userId = await sessionUser(deps, req);
    if (userId) {
      const header = req.headers['x-project-id'];
      const projectId = Array.isArray(header) ? header[0] : header;
      if (!projectId) {
        throw new AppError('BAD_REQUEST', 'X-Project-Id header is required with a session cookie', {
          suggestion: 'Send X-Project-Id: <project uuid>, or use the project secret key.',
        });
      }
      if (!isUuid(projectId)) throw new AppError('RESOURCE_NOT_FOUND', 'Project not found');
      const m = await membership(deps, projectId, userId);
      // Not a member: 404, never 403 (decisions.md: do not reveal existence).
      if (!m) throw new AppError('RESOURCE_NOT_FOUND', 'Project not found');
      if (m.disabled) throw new AppError('PROJECT_DISABLED', 'This project is disabled');
      return { via: 'session', projectId, userId, role: m.role };
    }
  }
  throw invalidKey();
}

async function membership(deps: Deps, projectId: string, userId: string) {
  const [m] = await deps.db
    .select({ role: memberships.role, disabled: projects.disabled })
    .from(memberships)
    .innerJoin(projects, eq(projects.id, memberships.projectId))
    .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)))
    .limit(1);
  return m;
}

async function authenticateMember(deps: Deps, req: FastifyRequest): Promise<RequestAuth> {
  const projectId = (req.params as { id?: string }).id;
  const key = bearer(req);
  if (key) {
    if (!key.startsWith('sk_')) throw invalidKey();
    const project = await projectByKey(deps, key, 'secret');
    if (!project) throw invalidKey();
    if (project.id !== projectId) throw new AppError('RESOURCE_NOT_FOUND', 'Project not found');
    return { via: 'secret', projectId: project.id, role: 'ADMIN' };
  }
  const userId = await sessionUser(deps, req);
  if (!userId) throw new AppError('UNAUTHORIZED', 'Sign in first: no valid session cookie');
  if (!isUuid(projectId)) throw new AppError('RESOURCE_NOT_FOUND', 'Project not found');
  const m = await membership(deps, projectId, userId);
  if (!m) throw new AppError('RESOURCE_NOT_FOUND', 'Project not found');
  return { via: 'session', userId, role: m.role };
}

/**
 * @throws AppError 403 FORBIDDEN unless the caller's role is one of `roles` (decisions.md: only OWNER
 * deletes, resets or bills; OWNER and ADMIN manage members and keys).
 */
export function requireRole(req: FastifyRequest, ...roles: Role[]): void {
  if (!req.auth.role || !roles.includes(req.auth.role)) {
    throw new AppError('FORBIDDEN', `This needs the ${roles.join(' or ')} role in the project`);
  }
}

/** Installs the `onRequest` hook that authenticates every route by its `config.auth` (default `dashboard`). */
export function registerAuth(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('auth', null as unknown as RequestAuth);
  app.addHook('onRequest', async (req) => {
    const mode = req.routeOptions.config?.auth ?? (req.routeOptions.url ? 'dashboard' : 'none');
    req.auth = await authenticate(deps, req, mode);
  });
}

/** The project of an authenticated request. @throws AppError 401 when the route has none. */
export function projectOf(req: FastifyRequest): string {
  if (!req.auth?.projectId) throw invalidKey();
  return req.auth.projectId;
}

