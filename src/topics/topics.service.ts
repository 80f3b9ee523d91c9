import { sqlState } from '../http/db-errors.js';
import { sql } from 'drizzle-orm';
import type { ConsentOrigin } from '../consent/consent.js';
import type { Deps } from '../deps.js';
import type { SqlRunner } from '../db/tx.js';
import { AppError, invalid, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { setContactTopics, topicsOfContact } from './membership.js';
import * as repo from './topics.repo.js';
import { topicUsers } from './users.js';
import type { ContactTopicOut, TopicOut } from './topics.schema.js';

/** A project has at most this many topics (each is a switch on the preference centre). */
export const MAX_TOPICS = 100;

const isUniqueViolation = (e: unknown) => sqlState(e) === '23505';

const duplicate = (name: string) =>
  new AppError('CONFLICT', `The project already has a topic named "${name}"`, {
    errors: [{ field: 'name', message: 'Another topic has this name', code: 'duplicate' }],
  });

function topicView(t: repo.TopicWithMembers): TopicOut {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    default: t.subscriptionDefault,
    public: t.public,
    members: t.members,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

async function view(db: SqlRunner, projectId: string, id: string): Promise<TopicOut> {
  const [t] = isUuid(id) ? await repo.topicsWithMembers(db, projectId, id) : [];
  if (!t) throw notFound('Topic');
  return topicView(t);
}

/**
 * `POST /topics`. @throws AppError 409 CONFLICT for a name the project has already (any case) or past
 * {@link MAX_TOPICS} topics.
 */
export async function createTopic(
  deps: Deps,
  projectId: string,
  body: { name: string; description?: string | null; default: 'opt-in' | 'opt-out'; public?: boolean },
): Promise<TopicOut> {
  const now = deps.clock.now();
  try {
    return await deps.db.transaction(async (tx) => {
      // Serializes creates of one project, so the limit holds under concurrency.
      await tx.execute(sql`select 1 from projects where id = ${projectId} for update`);
      const n = await tx.execute<{ n: number }>(
        sql`select count(*)::int as n from topics where project_id = ${projectId}`,
      );
      if (n.rows[0].n >= MAX_TOPICS) throw new AppError('CONFLICT', `A project has at most ${MAX_TOPICS} topics`);
      const t = await repo.insertTopic(tx, {
        id: newId(),
        projectId,
        name: body.name,
        description: body.description ?? null,
        subscriptionDefault: body.default,
        public: body.public ?? true,
        createdAt: now,
        updatedAt: now,
      });
      return view(tx, projectId, t.id);
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw duplicate(body.name);
    throw e;
  }
}

export async function listTopics(deps: Deps, projectId: string): Promise<TopicOut[]> {
  return (await repo.topicsWithMembers(deps.db, projectId)).map(topicView);
}

export async function getTopic(deps: Deps, projectId: string, id: string): Promise<TopicOut> {
  return view(deps.db, projectId, id);
}

/**
 * `PATCH /topics/:id`. Changing `default` changes who is in the topic at once (explicit choices
 * stay). @throws 404 unknown topic; 409 CONFLICT for a name another topic has.
 */
export async function updateTopic(
  deps: Deps,
  projectId: string,
  id: string,
  body: { name?: string; description?: string | null; default?: 'opt-in' | 'opt-out'; public?: boolean },
): Promise<TopicOut> {
  if (!isUuid(id)) throw notFound('Topic');
  const set: Parameters<typeof repo.updateTopic>[3] = { updatedAt: deps.clock.now() };
  if (body.name !== undefined) set.name = body.name;
  if (body.description !== undefined) set.description = body.description;
  if (body.default !== undefined) set.subscriptionDefault = body.default;
  if (body.public !== undefined) set.public = body.public;
  try {
    const t = await repo.updateTopic(deps.db, projectId, id, set);
    if (!t) throw notFound('Topic');
  } catch (e) {
    if (isUniqueViolation(e)) throw duplicate(body.name ?? '');
    throw e;
  }
  return view(deps.db, projectId, id);
}

/**
 * `DELETE /topics/:id`: the topic and its members' choices; the consent log keeps its entries.
 * @throws 404; 409 CONFLICT naming the campaigns, templates and workflows that send under the topic
 *   and the forms that join it (topics/users.ts; `details` lists them by id and name).
 */
export async function deleteTopic(deps: Deps, projectId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound('Topic');
  await deps.db.transaction(async (tx) => {
    const users = await topicUsers(tx, projectId, id);
    const group = (kind: string, list: Array<{ name: string }>) =>
      list.length ? [`the ${kind}${list.length > 1 ? 's' : ''} ${list.map((u) => `"${u.name}"`).join(', ')}`] : [];
    const named = [
      ...group('campaign', users.campaigns),
      ...group('template', users.templates),
      ...group('workflow', users.workflows),
      ...group('form', users.forms),
    ];
    if (named.length) {
      throw new AppError('CONFLICT', `The topic is used by ${named.join(', ')}`, {
        details: { ...users },
        suggestion: 'Point those at another topic (or none), or delete them, first.',
      });
    }
    if (!(await repo.deleteTopic(tx, projectId, id))) throw notFound('Topic');
  });
}

/**
 * Checks that `topicId` (a request field, named `field` in the error) names a topic of the project.
 * @returns the id, or null for no topic. @throws AppError 422 (field `field`) for anything else.
 */
export async function projectTopic(
  db: SqlRunner,
  projectId: string,
  topicId: string | null | undefined,
  field = 'topicId',
) {
  if (topicId === undefined || topicId === null || topicId === '') return null;
  const r = isUuid(topicId)
    ? await db.execute(sql`select 1 from topics where id = ${topicId}::uuid and project_id = ${projectId}`)
    : { rows: [] };
  if (!r.rows.length) throw invalid(field, 'No topic with this id in the project', 'unknown_topic', topicId);
  return topicId;
}

/**
 * The project's topics as a look-up of a key a client wrote: a topic id (any case) or a topic name
 * (any case, spaces around ignored), as `POST /contacts`, `/v1/track` and the CSV import accept them.
 * One query; the look-up is then in memory.
 * @returns `(key) => topic id`, undefined for a key that is no topic of the project.
 */
export async function topicKeyLookup(db: SqlRunner, projectId: string): Promise<(key: string) => string | undefined> {
  const r = await db.execute<{ id: string; name: string }>(
    sql`select id, name from topics where project_id = ${projectId}`,
  );
  const byId = new Map(r.rows.map((t) => [t.id, t.id]));
  const byName = new Map(r.rows.map((t) => [t.name.toLowerCase(), t.id]));
  return (k) => byId.get(k.toLowerCase()) ?? byName.get(k.trim().toLowerCase());
}

/**
 * Resolves `choices` keyed by topic id or name (any case) to topic ids of the project, with `lookup`
 * ({@link topicKeyLookup}). @returns the choices by topic id, or the keys that name no topic.
 */
export function resolveWithLookup(
  lookup: (key: string) => string | undefined,
  choices: Record<string, boolean>,
): { resolved: Map<string, boolean>; unknown: string[] } {
  const resolved = new Map<string, boolean>();
  const unknown: string[] = [];
  for (const [k, v] of Object.entries(choices)) {
    const id = lookup(k);
    if (id) resolved.set(id, v);
    else unknown.push(k);
  }
  return { resolved, unknown };
}

/** The sentence that names topic keys no topic of the project has, e.g. `No topic "Weekly" in this project`. */
export const unknownTopicsMessage = (keys: string[]) =>
  `No topic ${keys.map((k) => `"${k}"`).join(', ')} in this project`;

/**
 * Resolves `choices` keyed by topic id or name (any case) to topic ids of the project.
 * @throws AppError 422 naming every key that is no topic of the project (nothing is changed).
 */
export async function resolveTopicChoices(
  db: SqlRunner,
  projectId: string,
  choices: Record<string, boolean>,
): Promise<Map<string, boolean>> {
  if (!Object.keys(choices).length) return new Map();
  const { resolved, unknown } = resolveWithLookup(await topicKeyLookup(db, projectId), choices);
  if (unknown.length) {
    throw new AppError('VALIDATION_ERROR', unknownTopicsMessage(unknown), {
      errors: unknown.map((k) => ({ field: `topics.${k}`, message: 'Unknown topic', code: 'unknown_topic' })),
    });
  }
  return resolved;
}

/**
 * `PUT /contacts/:id/topics`: joins and leaves topics for one contact (membership.ts records each real
 * change). @returns every topic of the project with the contact's membership after the change.
 * @throws 404 unknown contact; 422 unknown topic (nothing changed).
 */
export async function putContactTopics(
  deps: Deps,
  projectId: string,
  contactId: string,
  choices: Record<string, boolean>,
  origin: ConsentOrigin,
): Promise<{ topics: ContactTopicOut[] }> {
  if (!isUuid(contactId)) throw notFound('Contact');
  const resolved = await resolveTopicChoices(deps.db, projectId, choices);
  return deps.db.transaction(async (tx) => {
    await setContactTopics(tx, projectId, contactId, resolved, deps.clock.now(), origin);
    return { topics: await topicsOfContact(tx, projectId, contactId) };
  });
}
