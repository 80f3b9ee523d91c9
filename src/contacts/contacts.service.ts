import { sqlState } from '../http/db-errors.js';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { setSubscription } from './subscription.js';
import type { ConsentOrigin } from '../consent/consent.js';
import { AppError, invalid, notFound, simpleBadRequest } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import { suppressionOf } from '../suppressions/suppressions.service.js';
import { contactWebhookEvent, queueWebhookDeliveries } from '../webhook-endpoints/fanout.js';
import { normalizeEmail, splitData } from './contact-data.js';
import * as repo from './contacts.repo.js';
import type { ListContactsQuery } from './contacts.schema.js';
import { contactOut, upsertContact } from './contacts.upsert.js';
import type { Tx } from '../db/tx.js';
import { setContactTopics, topicsOfContact } from '../topics/membership.js';
import { resolveTopicChoices } from '../topics/topics.service.js';

export type ContactOut = ReturnType<typeof contactOut>;

const emailFormat = z.email();

export interface CreateInput {
  email?: string | null;
  subscribed?: boolean;
  data?: Record<string, unknown> | null;
  /** Topic choices by id or name (topics/topics.service.ts resolveTopicChoices). */
  topics?: Record<string, boolean>;
}

/**
 * `POST /contacts`: create or upsert by email. New contacts default to subscribed. An existing
 * contact whose explicit `subscribed` differs is moved and a `contact.subscribed`/
 * `contact.unsubscribed` event recorded: the event is how workflows and the activity feed learn of
 * any subscription change. `origin` (API key or dashboard) goes into the consent entry of a change,
 * or of a new contact created subscribed.
 * @returns the contact with `_meta` and whether it was created (201) or updated (200).
 * @throws 400 simple `{error}` body when `email` is missing or empty; 422 when it is malformed.
 */
export async function createContact(deps: Deps, projectId: string, input: CreateInput, origin: ConsentOrigin) {
  if (input.email === undefined || input.email === null || input.email.trim() === '') {
    throw simpleBadRequest('Email is required');
  }
  const email = normalizeEmail(input.email);
  if (!emailFormat.safeParse(email).success) throw invalid('email', 'Invalid email', 'invalid_string', input.email);
  const data = splitData(input.data ?? undefined);
  const now = deps.clock.now();
  // Unknown topics are refused before anything is written.
  const topics = input.topics
    ? await resolveTopicChoices(deps.db, projectId, input.topics)
    : new Map<string, boolean>();
  const upsert = (tx: Tx) =>
    upsertContact(tx, {
      projectId,
      email,
      data,
      subscribed: input.subscribed,
      defaultSubscribed: true,
      announceUpdate: 'always',
      origin,
      now,
    });
  // One statement, atomic on its own: the contact, its subscription event and its webhook deliveries;
  // with topics, that statement and the membership changes in one transaction.
  const res = topics.size
    ? await deps.db.transaction(async (tx) => {
        const r = await upsert(tx);
        await setContactTopics(tx, projectId, r.contact.id, topics, now, origin);
        return r;
      })
    : await upsert(deps.db);
  return {
    contact: { ...contactOut(res.contact), _meta: { isNew: res.isNew, isUpdate: !res.isNew } },
    isNew: res.isNew,
  };
}

/**
 * `GET /contacts/:id`, with `suppression`: `{reason, createdAt}` when the contact's address is on the
 * suppression list, else null. @throws 404 for an unknown id, another project's id or a non-uuid.
 */
export async function getContact(deps: Deps, projectId: string, id: string) {
  const c = isUuid(id) ? await repo.getContact(deps.db, projectId, id) : undefined;
  if (!c) throw notFound('Contact');
  return {
    ...contactOut(c),
    suppression: await suppressionOf(deps.db, projectId, c.email),
    topics: await topicsOfContact(deps.db, projectId, c.id),
  };
}

export interface PatchInput {
  email?: string;
  subscribed?: boolean;
  data?: Record<string, unknown> | null;
}

const isUniqueViolation = (e: unknown) => sqlState(e) === '23505';

/**
 * `PATCH /contacts/:id`: email change, subscription flip (records the event), data
 * patch (null deletes, "" ignored, reserved keys dropped). Row locked for the read-compare-write.
 * A subscription change records its consent entry from `origin`.
 * @throws 404 unknown contact; 409 CONFLICT when another contact of the project has the email.
 */
export async function patchContact(
  deps: Deps,
  projectId: string,
  id: string,
  input: PatchInput,
  origin: ConsentOrigin,
): Promise<ContactOut> {
  if (!isUuid(id)) throw notFound('Contact');
  const data = splitData(input.data ?? undefined);
  const now = deps.clock.now();
  try {
    return await deps.db.transaction(async (tx) => {
      const before = await repo.getContact(tx, projectId, id, true);
      if (!before) throw notFound('Contact');
      if (input.email !== undefined && input.email !== before.email) {
        const other = await repo.idByEmail(tx, projectId, input.email);
        if (other) throw emailTaken(input.email);
      }
      const updated = await repo.updateContact(tx, projectId, id, {
        email: input.email,
        set: data.set,
        unset: data.unset,
        now,
      });
      if (!updated) throw notFound('Contact');
      // One contact.updated for the whole PATCH, announced below, so the subscription change does not announce itself.
      const moved =
        input.subscribed === undefined
          ? []
          : await setSubscription(tx, projectId, [id], input.subscribed, now, { origin, announce: false });
      const after = moved.length ? { ...updated, subscribed: moved[0].subscribed } : updated;
      await queueWebhookDeliveries(tx, projectId, [contactWebhookEvent('contact.updated', after, now)]);
      return contactOut(after);
    });
  } catch (e) {
    // Two PATCHes racing to the same address: the unique index settles it.
    if (isUniqueViolation(e)) throw emailTaken(input.email ?? '');
    throw e;
  }
}

const emailTaken = (email: string) =>
  new AppError('CONFLICT', 'Another contact in this project already uses this email', { details: { email } });

/** `DELETE /contacts/:id`, with its `contact.deleted` event webhook. @throws 404 when the contact is not in the project. */
export async function deleteContact(deps: Deps, projectId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound('Contact');
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const c = await repo.getContact(tx, projectId, id, true);
    if (!c || !(await repo.deleteContact(tx, projectId, id))) throw notFound('Contact');
    await queueWebhookDeliveries(tx, projectId, [contactWebhookEvent('contact.deleted', c, now)]);
  });
}

/** `timestamptz::text` as PostgreSQL prints it (ISO DateStyle), the only createdAt key a cursor carries. */
const PG_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:\d{2}){0,2}|Z)$/;

const badCursor = () =>
  new AppError('BAD_REQUEST', 'Invalid cursor', {
    suggestion:
      'Pass the cursor of the previous response unchanged, with the same sort and dir; omit it for the first page.',
  });

interface Cursor {
  s: repo.SortKey;
  d: repo.SortDir;
  k: string;
  i: string;
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');

/**
 * The opaque `cursor` of `GET /contacts` that continues after the row with this sort key (for
 * createdAt: `created_at::text` as PostgreSQL prints it) and id. Exported for bench/contacts.ts.
 */
export const cursorAfter = (sort: repo.SortKey, dir: repo.SortDir, key: string, id: string): string =>
  encodeCursor({ s: sort, d: dir, k: key, i: id });

function decodeCursor(raw: string, sort: repo.SortKey, dir: repo.SortDir): Cursor {
  let c: Cursor;
  try {
    c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
  } catch {
    throw badCursor();
  }
  if (!c || typeof c !== 'object' || c.s !== sort || c.d !== dir || typeof c.k !== 'string' || !isUuid(c.i))
    throw badCursor();
  if (sort === 'createdAt' && !PG_TIMESTAMP.test(c.k)) throw badCursor();
  return c;
}

/**
 * `GET /contacts` (cursor envelope): keyset pages over (sort key, id), stable while contacts are
 * added or deleted between pages. `limit` defaults to 20 and is clamped into 1..100; unknown
 * `sort`/`dir` fall back to createdAt/desc; `total` only on the first page (0 later).
 * @throws 400 BAD_REQUEST for a cursor this endpoint did not issue (or issued for another sort/dir).
 */
export async function listContacts(deps: Deps, projectId: string, q: ListContactsQuery) {
  const limit = Math.min(100, Math.max(1, q.limit === undefined ? 20 : Number(q.limit)));
  const sort: repo.SortKey = q.sort === 'email' ? 'email' : 'createdAt';
  const dir: repo.SortDir = q.dir === 'asc' ? 'asc' : 'desc';
  const filter: repo.ListFilter = {
    search: q.search?.trim() || undefined,
    subscribed: q.subscribed === undefined ? undefined : q.subscribed === 'true',
  };
  const after = q.cursor ? decodeCursor(q.cursor, sort, dir) : undefined;
  const [rows, total] = await Promise.all([
    repo
      .listPage(deps.db, projectId, { ...filter, sort, dir, limit, after: after && { key: after.k, id: after.i } })
      .catch((e: unknown) => {
        // A well-formed but impossible timestamp in a tampered cursor (e.g. February 31st).
        if (
          after &&
          String((e as { code?: string })?.code ?? (e as { cause?: { code?: string } })?.cause?.code).startsWith('22')
        )
          throw badCursor();
        throw e;
      }),
    after ? Promise.resolve(0) : repo.countContacts(deps.db, projectId, filter),
  ]);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map((r) => contactOut(r)),
    cursor: hasMore && last ? encodeCursor({ s: sort, d: dir, k: last.sortKey, i: last.id }) : null,
    hasMore,
    total,
  };
}

/**
 * `POST /contacts/lookup`: `[{email, exists, id|null}]` in request order,
 * emails normalised (trimmed, lower-cased). One query.
 */
export async function lookup(deps: Deps, projectId: string, emails: string[]) {
  const norm = emails.map(normalizeEmail);
  const found = await repo.lookupEmails(deps.db, projectId, [...new Set(norm)]);
  return norm.map((email) => {
    const id = found.get(email) ?? null;
    return { email, exists: id !== null, id };
  });
}
