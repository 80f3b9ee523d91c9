import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { topics, type TopicDefault } from '../db/schema.js';
import type { SqlRunner } from '../db/tx.js';
import { topicMembersSql } from './membership.js';

/** SQL of topics; every function takes the project id first. */

export type TopicRow = typeof topics.$inferSelect;
/** A topic with its member count (subscribed contacts in it now). */
export type TopicWithMembers = TopicRow & { members: number };
type Handle = Pick<Db, 'select' | 'insert' | 'update' | 'delete'>;

export async function insertTopic(db: Handle, row: typeof topics.$inferInsert): Promise<TopicRow> {
  const [r] = await db.insert(topics).values(row).returning();
  return r;
}

export async function updateTopic(
  db: Handle,
  projectId: string,
  id: string,
  set: Partial<typeof topics.$inferInsert>,
): Promise<TopicRow | undefined> {
  const [r] = await db
    .update(topics)
    .set(set)
    .where(and(eq(topics.projectId, projectId), eq(topics.id, id)))
    .returning();
  return r;
}

export async function deleteTopic(db: Handle, projectId: string, id: string): Promise<boolean> {
  const r = await db
    .delete(topics)
    .where(and(eq(topics.projectId, projectId), eq(topics.id, id)))
    .returning({ id: topics.id });
  return r.length > 0;
}

/**
 * Topics of the project (all, or the one `id`), by name, each with `members`: the subscribed contacts
 * in it, counted by membership.ts {@link topicMembersSql}.
 */
export async function topicsWithMembers(db: SqlRunner, projectId: string, id?: string): Promise<TopicWithMembers[]> {
  const one: SQL = id ? sql`and t.id = ${id}::uuid` : sql``;
  const r = await db.execute<{
    id: string;
    project_id: string;
    name: string;
    description: string | null;
    subscription_default: TopicDefault;
    public: boolean;
    created_at: string;
    updated_at: string;
    members: number;
  }>(sql`
    select t.*, ${topicMembersSql(projectId, sql`t`)} as members
    from topics t
    where t.project_id = ${projectId}::uuid ${one}
    order by lower(t.name)`);
  return r.rows.map((t) => ({
    id: t.id,
    projectId: t.project_id,
    name: t.name,
    description: t.description,
    subscriptionDefault: t.subscription_default,
    public: t.public,
    createdAt: new Date(t.created_at),
    updatedAt: new Date(t.updated_at),
    members: t.members,
  }));
}
