import { and, eq } from 'drizzle-orm';
import { memberships, projects } from '../db/schema.js';
import type { Deps } from '../deps.js';
import type { Role } from '../http/auth.js';
import { AppError, notFound } from '../http/errors.js';
import { keyCacheFor } from '../http/key-cache.js';
import { newId } from '../lib/ids.js';
import { closeInvitation } from '../invitations/invitations.repo.js';
import type { InvitationOut } from '../invitations/invitations.schema.js';
import { createInvitation } from '../invitations/invitations.service.js';
import { findUserByEmail } from '../users/users.repo.js';
import { forgetHealth, senderHealth } from './health.js';
import { generateKey, generateKeyPair, maskKey, type KeyKind, type SealPublicKey } from './keys.js';
import { openSecret, sealSecret } from '../lib/secrets.js';
import { keyring, resealColumn, secretPlaces, type ResealCount } from '../lib/secret-places.js';
import * as repo from './projects.repo.js';
import { retentionUpdateSql, retentionView, type RetentionPatch } from '../retention/retention.schema.js';

type Tracking = 'ENABLED' | 'DISABLED' | 'MARKETING_ONLY';

/** Seals project `id`'s public key for storage (lib/secret-places.ts `projectPublicKey`). */
const sealFor =
  (deps: Pick<Deps, 'config' | 'secret'>, id: string): SealPublicKey =>
  (plain) =>
    sealSecret(keyring(deps), plain, secretPlaces.projectPublicKey(id));

/**
 * Project `id`'s public key in clear, or null: a project made before keys were kept (only its hash is
 * known until the key is rotated), or a key sealed with an encryption key no longer configured.
 */
function openPublicKey(deps: Pick<Deps, 'config' | 'secret'>, id: string, stored: string | null): string | null {
  if (!stored) return null;
  try {
    return openSecret(keyring(deps), stored, secretPlaces.projectPublicKey(id));
  } catch {
    return null;
  }
}

/** Start-up step: every kept public key sealed with the current encryption key (lib/secret-places.ts). */
export async function resealPublicKeys(deps: Pick<Deps, 'db' | 'config' | 'secret'>): Promise<ResealCount> {
  return resealColumn(deps, projects, projects.id, projects.publicKey, secretPlaces.projectPublicKey);
}

/** Creates a project with a fresh key pair and makes `userId` its OWNER; the full keys are returned once. */
export async function createProject(deps: Deps, userId: string, name: string) {
  const id = newId();
  const keys = generateKeyPair(sealFor(deps, id));
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await tx.insert(projects).values({ id, name, ...keys.stored, createdAt: now, updatedAt: now });
    await tx.insert(memberships).values({ projectId: id, userId, role: 'OWNER', createdAt: now });
  });
  return { id, name, public: keys.public, secret: keys.secret, createdAt: now.toISOString() };
}

export async function listProjects(deps: Deps, userId: string) {
  const rows = await repo.listUserProjects(deps.db, userId);
  return rows.map(({ project: p, role }) => ({
    id: p.id,
    name: p.name,
    role,
    public: maskKey('pk_', p.publicKeyHint),
    publicKey: openPublicKey(deps, p.id, p.publicKey),
    secret: maskKey('sk_', p.secretKeyHint),
    tracking: p.tracking,
    brandColor: p.brandColor,
    timeZone: p.timeZone,
    disabled: p.disabled,
    retention: retentionView(p.retention),
    require2fa: p.require2fa,
    createdAt: p.createdAt.toISOString(),
  }));
}

/**
 * Renames a project or changes its tracking mode, brand colour or time zone (an IANA name the schema
 * checked; schedule triggers read their next tick in the new zone from then on). @throws AppError 404.
 */
export async function updateProject(
  deps: Deps,
  id: string,
  patch: {
    name?: string;
    tracking?: Tracking;
    brandColor?: string | null;
    timeZone?: string;
    retention?: RetentionPatch;
    require2fa?: boolean;
  },
) {
  const { retention, ...rest } = patch;
  const [p] = await deps.db
    .update(projects)
    .set({ ...rest, ...(retention ? { retention: retentionUpdateSql(retention) } : {}), updatedAt: deps.clock.now() })
    .where(eq(projects.id, id))
    .returning();
  if (!p) throw notFound('Project');
  return {
    id: p.id,
    name: p.name,
    tracking: p.tracking,
    brandColor: p.brandColor,
    timeZone: p.timeZone,
    disabled: p.disabled,
    retention: retentionView(p.retention),
    require2fa: p.require2fa,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** Deletes a project and everything it owns (foreign keys cascade). */
export async function deleteProject(deps: Deps, id: string): Promise<void> {
  const rows = await deps.db.delete(projects).where(eq(projects.id, id)).returning({ id: projects.id });
  // Other processes learn it from the NOTIFY of the projects trigger; this one before it answers.
  keyCacheFor(deps.pool).invalidate();
  if (!rows.length) throw notFound('Project');
}

/** Replaces both keys at once; the old ones stop working with this commit. */
export async function regenerateKeys(deps: Deps, id: string) {
  const keys = generateKeyPair(sealFor(deps, id));
  const rows = await deps.db
    .update(projects)
    .set({ ...keys.stored, updatedAt: deps.clock.now() })
    .where(eq(projects.id, id))
    .returning({ id: projects.id });
  keyCacheFor(deps.pool).invalidate();
  if (!rows.length) throw notFound('Project');
  return { id, public: keys.public, secret: keys.secret };
}

/**
 * Replaces one key of the project (`POST /users/@me/projects/:id/regenerate-key`); the other keeps
 * working. The old key stops working with this commit: this process empties its key cache before it
 * answers, the others on the `pigeon_keys` notification of the projects trigger (http/key-cache.ts).
 * @returns the new key in full (for the secret key, the only time it is shown). @throws AppError 404.
 */
export async function regenerateKey(deps: Deps, id: string, kind: KeyKind) {
  const fresh = generateKey(kind, sealFor(deps, id));
  const rows = await deps.db
    .update(projects)
    .set({ ...fresh.stored, updatedAt: deps.clock.now() })
    .where(eq(projects.id, id))
    .returning({ id: projects.id });
  keyCacheFor(deps.pool).invalidate();
  if (!rows.length) throw notFound('Project');
  return { id, key: kind, value: fresh.value };
}

/** The key, access and sender-health overview of `GET /projects/:id/security`. @throws AppError 404. */
export async function security(deps: Deps, id: string) {
  const p = await repo.getProject(deps.db, id);
  if (!p) throw notFound('Project');
  const f = await repo.securityFacts(deps.db, id);
  return {
    id: p.id,
    publicKey: maskKey('pk_', p.publicKeyHint),
    secretKey: maskKey('sk_', p.secretKeyHint),
    keysStoredAs: 'sha256' as const,
    tracking: p.tracking,
    disabled: p.disabled,
    members: { owners: f.owners, admins: f.admins, members: f.members },
    verifiedDomains: f.domains,
    senderHealth: await senderHealth(deps.db, id, deps.clock.now()),
  };
}

/**
 * `POST /projects/:id/security/acknowledge` (OWNER or ADMIN): resumes paused campaign and marketing
 * mail; from now on only mail queued after this moment counts towards pausing it again (health.ts).
 * @returns the security overview. @throws AppError 404; 409 CONFLICT when sending is not paused.
 */
export async function acknowledgeHealth(deps: Deps, id: string, userId: string | undefined) {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const [p] = await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, id)).for('update');
    if (!p) throw notFound('Project');
    const health = await senderHealth(tx, id, now);
    if (!health.paused) throw new AppError('CONFLICT', 'Sending is not paused; there is nothing to acknowledge');
    await tx
      .update(projects)
      .set({ healthAcknowledgedAt: now, healthAcknowledgedBy: userId ?? null })
      .where(eq(projects.id, id));
  });
  forgetHealth(id);
  return security(deps, id);
}

export async function setupState(deps: Deps, id: string) {
  const s = await repo.setupState(deps.db, id);
  const st = {
    hasDomain: s.hasDomain,
    hasVerifiedDomain: s.hasVerifiedDomain,
    hasTemplate: s.hasTemplate,
    hasContact: s.hasContact,
    hasSentEmail: s.hasSentEmail,
    hasTrackedEvent: s.hasTrackedEvent,
    hasCampaign: s.hasCampaign,
    hasWorkflow: s.hasWorkflow,
  };
  return { ...st, completed: st.hasVerifiedDomain && st.hasSentEmail };
}

const memberOut = (m: { userId: string; email: string; role: Role; createdAt: Date }) => ({
  userId: m.userId,
  email: m.email,
  role: m.role,
  createdAt: m.createdAt.toISOString(),
});

export async function listMembers(deps: Deps, projectId: string) {
  return (await repo.listMembers(deps.db, projectId)).map(memberOut);
}

/**
 * Adds `email` to the project as `role`. A user whose address is verified becomes a member at once
 * (any pending invitation of that address is then closed as accepted); any other address, with an
 * unverified account or none, gets a pending invitation and its mail, so that nobody can take a seat
 * meant for a colleague by signing up with their address first.
 * @throws AppError 409 CONFLICT when the user is already a member or the address already invited.
 */
export async function addMember(
  deps: Deps,
  projectId: string,
  email: string,
  role: 'ADMIN' | 'MEMBER',
  invitedBy: string,
): Promise<{ member: ReturnType<typeof memberOut> } | { invitation: InvitationOut }> {
  return deps.db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (user && (await repo.getMember(tx, projectId, user.id))) {
      throw new AppError('CONFLICT', 'This user is already a member of the project');
    }
    if (!user?.emailVerified)
      return { invitation: await createInvitation(deps, tx, projectId, email, role, invitedBy) };
    const now = deps.clock.now();
    const rows = await tx
      .insert(memberships)
      .values({ projectId, userId: user.id, role, createdAt: now })
      .onConflictDoNothing()
      .returning();
    if (!rows.length) throw new AppError('CONFLICT', 'This user is already a member of the project');
    await closeInvitation(tx, { projectId, email }, 'accepted', now, user.id);
    return { member: memberOut({ userId: user.id, email: user.email, role, createdAt: now }) };
  });
}

/**
 * Changes a member's role. Only an OWNER may grant or take OWNER; the last OWNER cannot step down.
 * @throws AppError 404, 403 FORBIDDEN, 409 CONFLICT.
 */
export async function updateMember(deps: Deps, projectId: string, userId: string, role: Role, callerRole: Role) {
  return deps.db.transaction(async (tx) => {
    // Lock the project's memberships so two concurrent demotions cannot remove the last owner.
    const all = await tx.select().from(memberships).where(eq(memberships.projectId, projectId)).for('update');
    const m = all.find((x) => x.userId === userId);
    if (!m) throw notFound('Member');
    if ((role === 'OWNER' || m.role === 'OWNER') && callerRole !== 'OWNER')
      throw new AppError('FORBIDDEN', 'Only an OWNER can grant or remove the OWNER role');
    if (m.role === 'OWNER' && role !== 'OWNER' && all.filter((x) => x.role === 'OWNER').length === 1) {
      throw new AppError('CONFLICT', 'A project needs at least one OWNER');
    }
    await tx
      .update(memberships)
      .set({ role })
      .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)));
    const [member] = (await repo.listMembers(tx as never, projectId)).filter((x) => x.userId === userId);
    return memberOut(member);
  });
}

/** Removes a member; the last OWNER cannot be removed. @throws AppError 404, 403, 409. */
export async function removeMember(deps: Deps, projectId: string, userId: string, callerRole: Role, callerId?: string) {
  await deps.db.transaction(async (tx) => {
    const all = await tx.select().from(memberships).where(eq(memberships.projectId, projectId)).for('update');
    const m = all.find((x) => x.userId === userId);
    if (!m) throw notFound('Member');
    const leaving = callerId === userId;
    if (!leaving && callerRole === 'MEMBER')
      throw new AppError('FORBIDDEN', 'Only an OWNER or ADMIN can remove members');
    if (!leaving && m.role === 'OWNER' && callerRole !== 'OWNER')
      throw new AppError('FORBIDDEN', 'Only an OWNER can remove an OWNER');
    if (m.role === 'OWNER' && all.filter((x) => x.role === 'OWNER').length === 1)
      throw new AppError('CONFLICT', 'A project needs at least one OWNER');
    await tx.delete(memberships).where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)));
  });
}

export const resetProject = (deps: Deps, id: string) => repo.wipeProjectData(deps.db, id);
