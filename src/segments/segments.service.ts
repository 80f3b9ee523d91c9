import { sql } from 'drizzle-orm';
import { normalizeEmail } from '../contacts/contact-data.js';
import { contactOut } from '../contacts/contacts.upsert.js';
import type { ConditionTree } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, invalid, notFound, simpleBadRequest } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { compileCondition } from './compile.js';
import { countMatching } from './match.js';
import { parseConditionTree } from './condition.schema.js';
import { checkReferencingTrees, lockSegmentReferences } from './references.js';
import * as repo from './segments.repo.js';
import type { AddMembersInput, CreateSegmentInput, UpdateSegmentInput } from './segments.schema.js';
import type { Transaction as Tx } from '../db/tx.js';
import type { ConsentOrigin } from '../consent/consent.js';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A segment as the API returns it. */
export function segmentOut(s: repo.SegmentRow) {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    type: s.type,
    condition: s.condition,
    trackMembership: s.trackMembership,
    memberCount: s.memberCount,
    // Why the last background compute skipped it (null when it went well): a Pigeon addition.
    computeError: s.computeError,
    projectId: s.projectId,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

async function load(deps: Deps, projectId: string, id: string): Promise<repo.SegmentRow> {
  const s = isUuid(id) ? await repo.getSegment(deps.db, projectId, id) : undefined;
  if (!s) throw notFound('Segment');
  return s;
}

export const getSegment = async (deps: Deps, projectId: string, id: string) =>
  segmentOut(await load(deps, projectId, id));

export const listSegments = async (deps: Deps, projectId: string) =>
  (await repo.listSegments(deps.db, projectId)).map(segmentOut);

/**
 * Validates and counts a DYNAMIC condition for segment `id` (its own id is on the cycle stack).
 * @throws AppError 422 naming the wrong filter.
 */
async function checkedCount(
  deps: Deps,
  projectId: string,
  id: string,
  condition: unknown,
): Promise<{ tree: ConditionTree; count: number }> {
  const tree = parseConditionTree(condition);
  const count = await countMatching(deps, projectId, tree, { segmentStack: [id] });
  return { tree, count };
}

/**
 * The reference checks of a condition about to be saved for segment `id`, in the saving transaction:
 * under the project's segment-reference lock, the condition compiles against the stored segments
 * (limits included), and with `dependents` (a change of an existing segment) every tree naming the
 * segment stays within the limits too (references.ts).
 * @throws AppError 422 naming the filter or the tree that goes over, and the path.
 */
async function checkReferences(
  tx: Tx,
  deps: Deps,
  projectId: string,
  id: string,
  tree: ConditionTree,
  dependents: boolean,
): Promise<void> {
  await lockSegmentReferences(tx, projectId);
  const now = deps.clock.now();
  await compileCondition(tree, { db: tx, projectId, now, segmentStack: [id] });
  if (dependents) await checkReferencingTrees(tx, projectId, id, tree, now);
}

/**
 * `POST /segments`. DYNAMIC needs a condition object (else 400 simple `{error}` body); its member
 * count is computed now. STATIC ignores `condition` and starts empty. A tracked segment
 * remembers no members yet: its first compute emits an entry for every contact that matches (Plunk).
 * @throws AppError 400 (simple), 422 (condition, reference limits).
 */
export async function createSegment(deps: Deps, projectId: string, body: CreateSegmentInput) {
  const id = newId();
  let condition: ConditionTree | null = null;
  let memberCount = 0;
  if (body.type === 'DYNAMIC') {
    if (!isPlainObject(body.condition)) throw simpleBadRequest('Condition is required for DYNAMIC segments');
    ({ tree: condition, count: memberCount } = await checkedCount(deps, projectId, id, body.condition));
  }
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    if (condition) await checkReferences(tx, deps, projectId, id, condition, false);
    await repo.insertSegment(tx, {
      id,
      projectId,
      name: body.name,
      description: body.description ?? null,
      type: body.type,
      condition,
      trackMembership: body.trackMembership,
      memberCount,
      computedAt: body.type === 'DYNAMIC' ? now : null,
      createdAt: now,
      updatedAt: now,
    });
  });
  return getSegment(deps, projectId, id);
}

/**
 * `PATCH /segments/:id`: name, description, trackMembership, and `condition` for DYNAMIC only (ignored
 * for STATIC, as on create). A new condition is validated (a reference back to this segment, directly
 * or through others, is a 422) and the count recomputed; it is refused (422) when it would take a
 * segment or campaign audience that names this segment past the reference limits. Switching tracking
 * off forgets the remembered members, so switching it on again starts afresh.
 * @throws AppError 404, 422.
 */
export async function updateSegment(deps: Deps, projectId: string, id: string, body: UpdateSegmentInput) {
  const seg = await load(deps, projectId, id);
  const patch: Parameters<typeof repo.updateSegment>[3] = { updatedAt: deps.clock.now() };
  if (body.name !== undefined) patch.name = body.name;
  if (body.description !== undefined) patch.description = body.description;
  if (body.trackMembership !== undefined) patch.trackMembership = body.trackMembership;
  if (body.condition !== undefined && seg.type === 'DYNAMIC') {
    if (!isPlainObject(body.condition))
      throw invalid('condition', 'condition must be a condition tree object', 'invalid_type');
    const { tree, count } = await checkedCount(deps, projectId, id, body.condition);
    patch.condition = tree;
    patch.memberCount = count;
    patch.computedAt = deps.clock.now();
    patch.computeError = null;
  }
  await deps.db.transaction(async (tx) => {
    if (patch.condition) await checkReferences(tx, deps, projectId, id, patch.condition, true);
    await repo.updateSegment(tx, projectId, id, patch);
    if (seg.type === 'DYNAMIC' && body.trackMembership === false) await repo.clearMembers(tx, projectId, id);
  });
  return getSegment(deps, projectId, id);
}

/**
 * `DELETE /segments/:id`. @throws AppError 404; 409 CONFLICT while a SCHEDULED or SENDING campaign
 * uses it as its audience.
 */
export async function deleteSegment(deps: Deps, projectId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound('Segment');
  await deps.db.transaction(async (tx) => {
    if (!(await repo.lockSegment(tx, projectId, id))) throw notFound('Segment');
    const n = await repo.activeCampaignsUsing(tx, projectId, id);
    if (n > 0) {
      throw new AppError(
        'CONFLICT',
        `Segment is the audience of ${n} scheduled or sending campaign(s); cancel them or wait until they are sent`,
      );
    }
    await repo.deleteSegment(tx, projectId, id);
  });
}

/**
 * `GET /segments/:id/contacts`: DYNAMIC is evaluated live (newest contacts first), STATIC reads its
 * members (most recently added first). Answers `{data, total, page, pageSize}`.
 * @throws AppError 404; 422 when a stored condition no longer compiles (e.g. it names a deleted segment).
 */
export async function segmentContacts(deps: Deps, projectId: string, id: string, page: number, pageSize: number) {
  const seg = await load(deps, projectId, id);
  let res;
  if (seg.type === 'STATIC') {
    res = await repo.membersPage(deps.db, projectId, id, page, pageSize);
  } else {
    const predicate = await compileCondition(seg.condition, {
      db: deps.db,
      projectId,
      now: deps.clock.now(),
      segmentStack: [id],
    });
    res = await repo.contactsPage(deps.db, projectId, predicate, page, pageSize);
  }
  const data = res.rows.map((r) =>
    contactOut({
      ...r,
      createdAt: new Date(r.createdAt),
      updatedAt: new Date(r.updatedAt),
      snoozedUntil: r.snoozedUntil ? new Date(r.snoozedUntil) : null,
    }),
  );
  return { data, total: res.total, page, pageSize, totalPages: Math.ceil(res.total / pageSize) };
}

function requireStatic(seg: repo.SegmentRow): void {
  if (seg.type !== 'STATIC') {
    throw new AppError(
      'BAD_REQUEST',
      'Members can only be added to or removed from STATIC segments; a DYNAMIC segment follows its condition',
    );
  }
}

/**
 * `POST /segments/:id/members`: adds contacts by email to a STATIC segment; with `createMissing` the
 * unknown addresses become contacts (`subscribed` as given, default true). `added` counts the
 * contacts of the request that are now members (Plunk), `created` the new contacts, `notFound` the
 * addresses (as sent) that have no contact.
 * @throws AppError 404; 400 for a DYNAMIC segment.
 */
export async function addMembers(
  deps: Deps,
  projectId: string,
  id: string,
  body: AddMembersInput,
  origin: ConsentOrigin,
) {
  const seg = await load(deps, projectId, id);
  requireStatic(seg);
  const wanted = [...new Set(body.emails.map(normalizeEmail))];
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const created = body.createMissing
      ? await repo.createMissingContacts(tx, projectId, wanted, body.subscribed, now, origin)
      : 0;
    const found = new Set(await repo.addMembersByEmail(tx, projectId, id, wanted, now));
    await repo.storeStaticCount(tx, id);
    await tx.execute(sql`update segments set updated_at = ${now.toISOString()}::timestamptz where id = ${id}`);
    return { added: found.size, created, notFound: body.emails.filter((e) => !found.has(normalizeEmail(e))) };
  });
}

/** `DELETE /segments/:id/members`: answers `{removed}` (memberships removed). @throws AppError 404; 400 for DYNAMIC. */
export async function removeMembers(deps: Deps, projectId: string, id: string, emails: string[]) {
  const seg = await load(deps, projectId, id);
  requireStatic(seg);
  return deps.db.transaction(async (tx) => {
    const removed = await repo.removeMembersByEmail(tx, projectId, id, [...new Set(emails.map(normalizeEmail))]);
    await repo.storeStaticCount(tx, id);
    return { removed };
  });
}

/** The segment row, for the compute route's checks. @throws AppError 404. */
export const loadSegment = load;

/**
 * `POST /segments/count`: contacts of the project an unsaved condition matches now (the builder's
 * live count). @throws AppError 422 with `condition.…` field paths.
 */
export async function countCondition(deps: Deps, projectId: string, condition: unknown): Promise<{ count: number }> {
  if (condition === undefined || condition === null) throw invalid('condition', 'Required', 'invalid_type');
  return { count: await countMatching(deps, projectId, condition, { prefix: 'condition' }) };
}
