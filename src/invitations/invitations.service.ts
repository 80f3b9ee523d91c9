import { and, eq } from 'drizzle-orm';
import { memberships } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, notFound } from '../http/errors.js';
import type { Quota } from '../http/rate-limit.js';
import { newId } from '../lib/ids.js';
import { deliverAccountMail, quotedText } from '../users/account-mail.js';
import { dateInWords, renderAccountMail } from '../users/account-mails.js';
import { findUserById } from '../users/users.repo.js';
import { enqueue } from '../worker/jobs.js';
import { invitationMailJob } from './invitations.jobs.js';
import * as repo from './invitations.repo.js';
import type { InvitationOut } from './invitations.schema.js';
import type { Tx } from '../db/tx.js';

/**
 * Invitation mails (new invitations and resends) one account may send per hour and one project per
 * day: enough to bring a team in, too few to make invitations a way to mail strangers.
 */
export const INVITATION_QUOTAS: Quota[] = [
  {
    name: 'invitations-account',
    max: 20,
    windowMs: 3600_000,
    key: (req) => req.auth?.userId,
    what: 'invitations from this account',
  },
  {
    name: 'invitations-project',
    max: 50,
    windowMs: 24 * 3600_000,
    key: (req) => (req.params as { id?: string }).id,
    what: 'invitations to this project today',
  },
];

/** How long an invitation can be accepted: 7 days, in milliseconds (resend renews it). */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

export const toInvitationOut = (v: repo.InvitationView, now: Date): InvitationOut => ({
  invitationId: v.id,
  projectId: v.projectId,
  projectName: v.projectName,
  email: v.email,
  role: v.role,
  status: v.status === 'pending' && v.expiresAt <= now ? 'expired' : v.status,
  invitedBy: v.invitedByEmail,
  createdAt: v.createdAt.toISOString(),
  expiresAt: v.expiresAt.toISOString(),
});

const queueMail = (db: Tx, invitationId: string) =>
  // Keyed: several resends before the worker runs make one mail.
  enqueue(db, invitationMailJob, { invitationId }, { jobKey: `invitation-mail:${invitationId}` });

/**
 * Only an account whose own address is confirmed sends invitations: an invitation is a mail from
 * Pigeon to any address, and an account anyone can open in a minute must not be a way to send them.
 * @throws AppError 403 FORBIDDEN otherwise.
 */
async function requireVerifiedInviter(tx: Tx, userId: string): Promise<void> {
  const inviter = await findUserById(tx, userId);
  if (!inviter?.emailVerified) {
    throw new AppError(
      'FORBIDDEN',
      'Confirm your own email address before inviting anyone: open the link of the verification mail we sent you',
      {
        suggestion: 'Use “Send the link again” at the top of the dashboard, or POST /auth/request-verification.',
      },
    );
  }
}

/**
 * Invites `email` to a project as `role` and queues the invitation mail, in `tx` (the caller's
 * transaction, which has checked that the address has no verified account and no membership).
 * @throws AppError 403 FORBIDDEN when the inviter's own address is not confirmed; 409 CONFLICT when
 * the address already has a pending invitation (`details.invitationId`; resend it instead).
 */
export async function createInvitation(
  deps: Deps,
  tx: Tx,
  projectId: string,
  email: string,
  role: 'ADMIN' | 'MEMBER',
  invitedBy: string,
): Promise<InvitationOut> {
  await requireVerifiedInviter(tx, invitedBy);
  const now = deps.clock.now();
  const row = await repo.insertPending(tx, {
    id: newId(),
    projectId,
    email,
    role,
    invitedBy,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    createdAt: now,
    updatedAt: now,
  });
  if (!row) {
    const existing = await repo.findPending(tx, projectId, email);
    throw new AppError('CONFLICT', 'This address already has a pending invitation to the project', {
      details: { invitationId: existing?.id },
      suggestion: 'Resend it with POST /projects/:id/invitations/:invitationId/resend, or revoke it first.',
    });
  }
  await queueMail(tx, row.id);
  return toInvitationOut((await repo.getInvitationView(tx, row.id))!, now);
}

export async function listProjectInvitations(deps: Deps, projectId: string): Promise<InvitationOut[]> {
  const now = deps.clock.now();
  return (await repo.listProjectInvitations(deps.db, projectId)).map((v) => toInvitationOut(v, now));
}

/** Locks a pending invitation of `projectId`. @throws AppError 404 (unknown, other project), 409 (not pending). */
async function lockPendingOf(tx: Tx, projectId: string, invitationId: string) {
  const inv = await repo.lockInvitation(tx, invitationId);
  if (!inv || inv.projectId !== projectId) throw notFound('Invitation');
  if (inv.status !== 'pending') throw new AppError('CONFLICT', `This invitation is ${inv.status}`);
  return inv;
}

/** Mails a pending invitation again and renews its validity. @throws AppError 403 (inviter unconfirmed), 404, 409. */
export async function resendInvitation(
  deps: Deps,
  projectId: string,
  invitationId: string,
  userId: string,
): Promise<InvitationOut> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    await requireVerifiedInviter(tx, userId);
    await lockPendingOf(tx, projectId, invitationId);
    await repo.renewInvitation(tx, invitationId, new Date(now.getTime() + INVITATION_TTL_MS), now);
    await queueMail(tx, invitationId);
    return toInvitationOut((await repo.getInvitationView(tx, invitationId))!, now);
  });
}

/** Revokes a pending invitation: it can no longer be accepted. @throws AppError 404, 409. */
export async function revokeInvitation(deps: Deps, projectId: string, invitationId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    await lockPendingOf(tx, projectId, invitationId);
    await repo.closeInvitation(tx, { id: invitationId }, 'revoked', deps.clock.now());
  });
}

/**
 * An invitee's address must be verified to see or answer invitations: an account anyone can create for
 * any address must not take an invitation meant for its owner.
 * @throws AppError 403 FORBIDDEN when it is not.
 */
function requireVerified(user: { emailVerified: boolean }): void {
  if (!user.emailVerified) {
    throw new AppError('FORBIDDEN', 'Verify your email address before answering invitations', {
      suggestion: 'Open the link of the verification mail, or ask for a new one with POST /auth/request-verification.',
    });
  }
}

/** Pending invitations addressed to the signed-in user. @throws AppError 403 when the address is not verified. */
export async function listMyInvitations(deps: Deps, userId: string): Promise<InvitationOut[]> {
  const user = await findUserById(deps.db, userId);
  if (!user) throw new AppError('UNAUTHORIZED', 'Session user no longer exists');
  requireVerified(user);
  const now = deps.clock.now();
  return (await repo.listInvitationsTo(deps.db, user.email)).map((v) => toInvitationOut(v, now));
}

/**
 * Answers an invitation addressed to the signed-in user. The user's verified address must be the
 * invitation's: any other user gets 404, as for an unknown id.
 */
async function answer<T>(
  deps: Deps,
  userId: string,
  invitationId: string,
  act: (tx: Tx, inv: repo.InvitationRow, user: { id: string; email: string }, now: Date) => Promise<T>,
): Promise<T> {
  return deps.db.transaction(async (tx) => {
    const inv = await repo.lockInvitation(tx, invitationId);
    const user = await findUserById(tx, userId);
    if (!inv || !user || inv.email !== user.email || inv.status === 'revoked') throw notFound('Invitation');
    requireVerified(user);
    if (inv.status !== 'pending') throw new AppError('CONFLICT', `This invitation is already ${inv.status}`);
    const now = deps.clock.now();
    if (inv.expiresAt <= now) {
      throw new AppError('CONFLICT', 'This invitation has expired', {
        suggestion: 'Ask an OWNER or ADMIN of the project to resend it.',
      });
    }
    return act(tx, inv, user, now);
  });
}

/**
 * Accepts an invitation: the user becomes a member with the invited role (an existing membership is
 * kept as it is). @throws AppError 404 (unknown, or addressed to someone else), 403 (address not
 * verified), 409 (expired, accepted or declined).
 */
export async function acceptInvitation(deps: Deps, userId: string, invitationId: string) {
  return answer(deps, userId, invitationId, async (tx, inv, user, now) => {
    await tx
      .insert(memberships)
      .values({ projectId: inv.projectId, userId: user.id, role: inv.role, createdAt: now })
      .onConflictDoNothing();
    await repo.closeInvitation(tx, { id: inv.id }, 'accepted', now, user.id);
    const [m] = await tx
      .select()
      .from(memberships)
      .where(and(eq(memberships.projectId, inv.projectId), eq(memberships.userId, user.id)));
    return {
      projectId: inv.projectId,
      userId: user.id,
      email: user.email,
      role: m.role,
      createdAt: m.createdAt.toISOString(),
    };
  });
}

/** Declines an invitation. @returns its project id (the audit entry is recorded there). @throws AppError as {@link acceptInvitation}. */
export async function declineInvitation(deps: Deps, userId: string, invitationId: string): Promise<string> {
  return answer(deps, userId, invitationId, async (tx, inv, _user, now) => {
    await repo.closeInvitation(tx, { id: inv.id }, 'declined', now);
    return inv.projectId;
  });
}

/**
 * Job body: mails a pending invitation to its address (nothing when it was answered or revoked since).
 * @throws the transport's error, for the job to retry.
 */
export async function mailInvitation(deps: Deps, invitationId: string): Promise<void> {
  const v = await repo.getInvitationView(deps.db, invitationId);
  if (!v || v.status !== 'pending') return;
  const base = deps.config.PUBLIC_URL;
  // The project's name is the inviter's words: quoted, short, no links. The inviter's address is shown
  // as it is: it is confirmed (only confirmed accounts invite), and the invitee should know who asks.
  const who = v.invitedByEmail ?? 'A project administrator';
  const project = quotedText(v.projectName);
  const mail = renderAccountMail({
    subject: `You are invited to join “${project}” on Pigeon`,
    heading: `Join “${project}” on Pigeon`,
    paragraphs: [
      `${who} invited you to join the project “${project}” as ${v.role.toLowerCase()}.`,
      `Open the invitation and log in, or create your account, with this address (${v.email}). Pigeon asks you to confirm the address once, then you are in the project.`,
    ],
    button: { label: 'Open the invitation', url: `${base}/invitations/${v.id}` },
    footnote: `The invitation is valid until ${dateInWords(v.expiresAt)}. If you did not expect it, ignore this mail.`,
  });
  await deliverAccountMail(deps, v.email, mail);
  await repo.markSent(deps.db, invitationId, deps.clock.now());
}
