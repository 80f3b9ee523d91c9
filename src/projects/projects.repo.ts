import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { memberships, projects, users } from '../db/schema.js';
import type { Role } from '../http/auth.js';
import type { Tx } from '../db/tx.js';

export type ProjectRow = typeof projects.$inferSelect;
/** The pool's handle or one of its transactions. */

export async function getProject(db: Db, id: string): Promise<ProjectRow | undefined> {
  const [p] = await db.select().from(projects).where(eq(projects.id, id)).limit(1);
  return p;
}

/** The IANA time zone of project `id` ('UTC' for an unknown id: the column's default). */
export async function timeZoneOf(db: Tx, id: string): Promise<string> {
  const [p] = await db.select({ tz: projects.timeZone }).from(projects).where(eq(projects.id, id)).limit(1);
  return p?.tz ?? 'UTC';
}

export async function listUserProjects(db: Db, userId: string) {
  return db
    .select({ project: projects, role: memberships.role })
    .from(memberships)
    .innerJoin(projects, eq(projects.id, memberships.projectId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(projects.createdAt));
}

export async function listMembers(db: Db, projectId: string) {
  return db
    .select({
      userId: memberships.userId,
      email: users.email,
      role: memberships.role,
      createdAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.projectId, projectId))
    .orderBy(asc(memberships.createdAt));
}

export async function getMember(db: Tx, projectId: string, userId: string) {
  const [m] = await db
    .select()
    .from(memberships)
    .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)))
    .limit(1);
  return m;
}

export async function countOwners(db: Db, projectId: string): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)` })
    .from(memberships)
    .where(and(eq(memberships.projectId, projectId), eq(memberships.role, 'OWNER' satisfies Role)));
  return r.n;
}

/** Setup checklist of `GET /projects/:id/setup-state`: one query of EXISTS probes. */
export async function setupState(db: Db, projectId: string) {
  const r = await db.execute<Record<string, boolean>>(sql`select
    exists(select 1 from domains where project_id = ${projectId}) as "hasDomain",
    exists(select 1 from domains where project_id = ${projectId} and verified) as "hasVerifiedDomain",
    exists(select 1 from templates where project_id = ${projectId}) as "hasTemplate",
    exists(select 1 from contacts where project_id = ${projectId}) as "hasContact",
    exists(select 1 from emails where project_id = ${projectId} and status not in ('PENDING','FAILED')) as "hasSentEmail",
    exists(select 1 from events where project_id = ${projectId} and name not like 'email.%' and name not like 'contact.%' and name not like 'segment.%') as "hasTrackedEvent",
    exists(select 1 from campaigns where project_id = ${projectId}) as "hasCampaign",
    exists(select 1 from workflows where project_id = ${projectId}) as "hasWorkflow"`);
  return r.rows[0];
}

/** Member counts by role and verified domains, for `security`. */
export async function securityFacts(db: Db, projectId: string) {
  const r = await db.execute<{ owners: number; admins: number; members: number; domains: string[] }>(sql`select
    count(*) filter (where role = 'OWNER') as owners,
    count(*) filter (where role = 'ADMIN') as admins,
    count(*) filter (where role = 'MEMBER') as members,
    coalesce((select array_agg(domain order by domain) from domains where project_id = ${projectId} and verified), '{}') as domains
    from memberships where project_id = ${projectId}`);
  return r.rows[0];
}

/**
 * Wipes a project's data and keeps the project, its members, keys and domains
 * (`POST /users/@me/projects/:id/reset`). One transaction: all or nothing.
 */
export async function wipeProjectData(db: Db, projectId: string): Promise<void> {
  await db.transaction(async (tx) => {
    for (const table of [
      'workflows',
      'campaigns',
      'segments',
      'emails',
      'events',
      'contacts',
      'templates',
      'suppressions',
      'background_jobs',
      'idempotency_keys',
      'uploads',
    ]) {
      await tx.execute(sql`delete from ${sql.identifier(table)} where project_id = ${projectId}`);
    }
  });
}
