import { and, asc, eq } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { invitations, projects, users, type InvitationState } from '../db/schema.js';
import type { Tx } from '../db/tx.js';

/** The pool's handle or one of its transactions. */
export type InvitationRow = typeof invitations.$inferSelect;
/** An invitation with what its answers show beside it. */
export type InvitationView = InvitationRow & { projectName: string; invitedByEmail: string | null };

const inviter = alias(users, 'inviter');

function selectViews(db: Tx) {
  return db
    .select({ invitation: invitations, projectName: projects.name, invitedByEmail: inviter.email })
    .from(invitations)
    .innerJoin(projects, eq(projects.id, invitations.projectId))
    .leftJoin(inviter, eq(inviter.id, invitations.invitedBy));
}
const flatten = (r: {
  invitation: InvitationRow;
  projectName: string;
  invitedByEmail: string | null;
}): InvitationView => ({ ...r.invitation, projectName: r.projectName, invitedByEmail: r.invitedByEmail });

/** One invitation with its project's name and the inviter's e-mail. */
export async function getInvitationView(db: Tx, id: string): Promise<InvitationView | undefined> {
  const [r] = await selectViews(db).where(eq(invitations.id, id)).limit(1);
  return r && flatten(r);
}

/** The pending invitations (expired ones included) of a project, oldest first. */
export async function listProjectInvitations(db: Tx, projectId: string): Promise<InvitationView[]> {
  const rows = await selectViews(db)
    .where(and(eq(invitations.projectId, projectId), eq(invitations.status, 'pending')))
    .orderBy(asc(invitations.createdAt));
  return rows.map(flatten);
}

/** The pending invitations (expired ones included) addressed to `email`, oldest first. */
export async function listInvitationsTo(db: Tx, email: string): Promise<InvitationView[]> {
  const rows = await selectViews(db)
    .where(and(eq(invitations.email, email), eq(invitations.status, 'pending')))
    .orderBy(asc(invitations.createdAt));
  return rows.map(flatten);
}

/** Inserts a pending invitation; undefined when the address already has one in the project. */
export async function insertPending(
  db: Tx,
  row: Omit<typeof invitations.$inferInsert, 'status'>,
): Promise<InvitationRow | undefined> {
  const [r] = await db
    .insert(invitations)
    .values({ ...row, status: 'pending' })
    .onConflictDoNothing()
    .returning();
  return r;
}

/** The pending invitation of `email` in a project, if any. */
export async function findPending(db: Tx, projectId: string, email: string): Promise<InvitationRow | undefined> {
  const [r] = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.projectId, projectId), eq(invitations.email, email), eq(invitations.status, 'pending')))
    .limit(1);
  return r;
}

/** Reads an invitation and locks it until the transaction ends (accept, decline, revoke, resend). */
export async function lockInvitation(tx: Tx, id: string): Promise<InvitationRow | undefined> {
  const [r] = await tx.select().from(invitations).where(eq(invitations.id, id)).for('update').limit(1);
  return r;
}

/**
 * The one place an invitation's status changes: `pending` to `to`, for one invitation or for the
 * pending invitation of (project, email). Returns how many rows changed.
 */
export async function closeInvitation(
  db: Tx,
  which: { id: string } | { projectId: string; email: string },
  to: Exclude<InvitationState, 'pending'>,
  now: Date,
  acceptedBy?: string,
): Promise<number> {
  const where =
    'id' in which
      ? eq(invitations.id, which.id)
      : and(eq(invitations.projectId, which.projectId), eq(invitations.email, which.email));
  const rows = await db
    .update(invitations)
    .set({ status: to, updatedAt: now, ...(acceptedBy ? { acceptedBy } : {}) })
    .where(and(where, eq(invitations.status, 'pending')))
    .returning({ id: invitations.id });
  return rows.length;
}

/** Renews a pending invitation's validity (resend). */
export async function renewInvitation(db: Tx, id: string, expiresAt: Date, now: Date): Promise<void> {
  await db
    .update(invitations)
    .set({ expiresAt, updatedAt: now })
    .where(and(eq(invitations.id, id), eq(invitations.status, 'pending')));
}

/** Notes when the invitation mail was handed to the transport. */
export async function markSent(db: Tx, id: string, now: Date): Promise<void> {
  await db.update(invitations).set({ lastSentAt: now }).where(eq(invitations.id, id));
}
