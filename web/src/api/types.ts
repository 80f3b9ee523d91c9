import type { paths } from './schema';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The JSON body of the `status` answer of `method` on `path`, from the generated schema: the one
 * source of the dashboard's data shapes. `never` while the route declares no response schema.
 */
export type ResponseOf<P extends keyof paths, M extends Method, S extends number = 200> =
  paths[P] extends Record<M, { responses: Record<S, { content: { 'application/json': infer T } }> }> ? T : never;

/** The JSON body a route takes. */
export type BodyOf<P extends keyof paths, M extends Method> =
  paths[P] extends Record<M, { requestBody?: { content: { 'application/json': infer T } } }> ? T : never;

export type User = ResponseOf<'/users/@me', 'get'>;
export type ServerConfig = ResponseOf<'/config', 'get'>;
export type ProjectSummary = ResponseOf<'/users/@me/projects', 'get'>[number];
export type CreatedProject = ResponseOf<'/users/@me/projects', 'post', 201>;
export type KeyPair = ResponseOf<'/users/@me/projects/{id}/regenerate-keys', 'post'>;
export type SetupState = ResponseOf<'/projects/{id}/setup-state', 'get'>;
export type ProjectSecurity = ResponseOf<'/projects/{id}/security', 'get'>;
export type Member = ResponseOf<'/projects/{id}/members', 'get'>[number];
export type Role = Member['role'];
export type Invitation = ResponseOf<'/projects/{id}/invitations', 'get'>[number];
export type Domain = ResponseOf<'/domains', 'post', 201>;
export type DomainRecord = Domain['records'][number];
export type BillingLimits = ResponseOf<'/users/@me/projects/{id}/billing-limits', 'get'>;
export type TrackingMode = ProjectSummary['tracking'];

/**
 * `PATCH /users/@me/projects/:id` answer; mirrors the server's `updateProject` result until the route
 * declares a response schema.
 */
export interface UpdatedProject {
  id: string;
  name: string;
  tracking: TrackingMode;
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * `GET /users/@me/projects/:id/billing-consumption` answer (emails this UTC calendar month per
 * source); mirrors the server's `consumption` result until the route declares a response schema.
 */
export interface BillingConsumption {
  periodStart: string;
  transactional: number;
  campaigns: number;
  workflows: number;
}

// Compile-time guard: a renamed route or a dropped response schema would silently turn an alias into
// `never` (whose properties type-check as anything); this fails `npm run typecheck` instead.
type Resolved<T> = [T] extends [never] ? false : true;
type Check<T extends true[]> = T;
export type AliasesResolved = Check<
  [
    Resolved<User>,
    Resolved<ServerConfig>,
    Resolved<ProjectSummary>,
    Resolved<CreatedProject>,
    Resolved<KeyPair>,
    Resolved<SetupState>,
    Resolved<ProjectSecurity>,
    Resolved<Member>,
    Resolved<Invitation>,
    Resolved<Domain>,
    Resolved<BillingLimits>,
  ]
>;
