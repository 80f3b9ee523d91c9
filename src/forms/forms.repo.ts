import { and, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { forms, formTopics, projects } from '../db/schema.js';
import type { SqlRunner } from '../db/tx.js';

/** SQL of forms; the dashboard's functions take the project id first. */

export type FormRow = typeof forms.$inferSelect;
/** A form with the ids of its topics, by topic name. */
export type FormWithTopics = FormRow & { topics: string[] };
/** A form as its public pages need it: with its project's name and brand colour. */
export type PublicForm = FormWithTopics & { projectName: string; brandColor: string | null };
type Handle = Pick<Db, 'select' | 'insert' | 'update' | 'delete'>;

/** The ids of form `f`'s topics as a JSON array, by topic name. */
const topicsOf = (formId: SQL) =>
  sql<string[]>`coalesce((select json_agg(t.id order by lower(t.name), t.id) from form_topics ft
    join topics t on t.id = ft.topic_id where ft.form_id = ${formId}), '[]'::json)`;

/** Forms of the project (all, newest first, or the one `id`), each with its topics. */
export async function formsWithTopics(
  db: Pick<Db, 'select'>,
  projectId: string,
  id?: string,
): Promise<FormWithTopics[]> {
  return db
    .select({ ...getTableColumns(forms), topics: topicsOf(sql`${forms.id}`) })
    .from(forms)
    .where(id ? and(eq(forms.projectId, projectId), eq(forms.id, id)) : eq(forms.projectId, projectId))
    .orderBy(sql`${forms.createdAt} desc, ${forms.id} desc`);
}

/** Form `id` of any project for its public pages, or undefined (unknown, or its project is disabled). */
export async function publicForm(db: Pick<Db, 'select'>, id: string): Promise<PublicForm | undefined> {
  const [f] = await db
    .select({
      ...getTableColumns(forms),
      topics: topicsOf(sql`${forms.id}`),
      projectName: projects.name,
      brandColor: projects.brandColor,
    })
    .from(forms)
    .innerJoin(projects, eq(projects.id, forms.projectId))
    .where(and(eq(forms.id, id), eq(projects.disabled, false)));
  return f;
}

/**
 * Locks the project row (so concurrent creates of one project count one after the other) and counts
 * its forms. Run in the creating transaction.
 */
export async function lockAndCountForms(tx: SqlRunner, projectId: string): Promise<number> {
  await tx.execute(sql`select 1 from projects where id = ${projectId} for update`);
  const r = await tx.execute<{ n: number }>(sql`select count(*)::int as n from forms where project_id = ${projectId}`);
  return r.rows[0].n;
}

/** Inserts a form and its topics (run in a transaction). */
export async function insertForm(
  tx: Handle,
  row: typeof forms.$inferInsert,
  topicIds: readonly string[],
): Promise<void> {
  await tx.insert(forms).values(row);
  if (topicIds.length) await tx.insert(formTopics).values(topicIds.map((topicId) => ({ formId: row.id, topicId })));
}

/**
 * Updates form `id` of the project with `set`, and when `topicIds` is given replaces its topics
 * (run in a transaction). @returns false when there is no such form.
 */
export async function updateForm(
  tx: Handle,
  projectId: string,
  id: string,
  set: Partial<typeof forms.$inferInsert>,
  topicIds?: readonly string[],
): Promise<boolean> {
  const r = await tx
    .update(forms)
    .set(set)
    .where(and(eq(forms.projectId, projectId), eq(forms.id, id)))
    .returning({ id: forms.id });
  if (!r.length) return false;
  if (topicIds) {
    await tx.delete(formTopics).where(eq(formTopics.formId, id));
    if (topicIds.length) await tx.insert(formTopics).values(topicIds.map((topicId) => ({ formId: id, topicId })));
  }
  return true;
}

/** Deletes form `id` of the project (its topics and sign-ups go with it). @returns false when there was none. */
export async function deleteForm(db: Handle, projectId: string, id: string): Promise<boolean> {
  const r = await db
    .delete(forms)
    .where(and(eq(forms.projectId, projectId), eq(forms.id, id)))
    .returning({ id: forms.id });
  return r.length > 0;
}

/** Counts one submission (`submissions`) or one opened confirmation link (`confirmations`) of form `id`. */
export async function countForm(tx: SqlRunner, id: string, what: 'submissions' | 'confirmations'): Promise<void> {
  const col = sql.identifier(what);
  await tx.execute(sql`update forms set ${col} = ${col} + 1 where id = ${id}::uuid`);
}
