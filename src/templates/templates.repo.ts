import { and, asc, count, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { templates } from '../db/schema.js';
import { containsPattern } from '../lib/like.js';
import type { ListTemplatesQuery } from './templates.schema.js';

export type TemplateRow = typeof templates.$inferSelect;
export type NewTemplateRow = typeof templates.$inferInsert;

/** `%`, `_` and `\` match themselves in an ILIKE pattern built from user text. */

export async function getTemplate(db: Db, projectId: string, id: string): Promise<TemplateRow | undefined> {
  const [row] = await db
    .select()
    .from(templates)
    .where(and(eq(templates.projectId, projectId), eq(templates.id, id)))
    .limit(1);
  return row;
}

export async function insertTemplate(db: Db, row: NewTemplateRow): Promise<TemplateRow> {
  const [created] = await db.insert(templates).values(row).returning();
  return created;
}

export async function updateTemplate(
  db: Db,
  projectId: string,
  id: string,
  patch: Partial<NewTemplateRow>,
): Promise<TemplateRow | undefined> {
  const [row] = await db
    .update(templates)
    .set(patch)
    .where(and(eq(templates.projectId, projectId), eq(templates.id, id)))
    .returning();
  return row;
}

/** One page of templates and the total matching the filters: two queries. */
export async function listTemplates(
  db: Db,
  projectId: string,
  q: ListTemplatesQuery,
): Promise<{ rows: TemplateRow[]; total: number }> {
  const conds: SQL[] = [eq(templates.projectId, projectId)];
  if (q.type) conds.push(eq(templates.type, q.type));
  if (q.search?.trim()) {
    const p = containsPattern(q.search.trim());
    conds.push(or(ilike(templates.name, p), ilike(templates.description, p), ilike(templates.subject, p))!);
  }
  const where = and(...conds);
  // Names sort as people read them, not by the database collation (C puts "bravo" after "Echo").
  const col =
    q.sort === 'name'
      ? sql`lower(${templates.name})`
      : q.sort === 'updatedAt'
        ? templates.updatedAt
        : templates.createdAt;
  const order = q.dir === 'asc' ? [asc(col), asc(templates.id)] : [desc(col), desc(templates.id)];
  const [rows, [{ n }]] = await Promise.all([
    db
      .select()
      .from(templates)
      .where(where)
      .orderBy(...order)
      .limit(q.pageSize)
      .offset((q.page - 1) * q.pageSize),
    db.select({ n: count() }).from(templates).where(where),
  ]);
  return { rows, total: n };
}

/** A workflow step that references a template, by `template_id` or by `config.templateId`. */
export interface TemplateUse {
  id: string;
  name: string;
  enabled: boolean;
  stepId: string;
  stepName: string;
}

const usesTemplate = (templateId: string) =>
  sql`(s.template_id = ${templateId}::uuid or s.config->>'templateId' = ${templateId})`;

/** Workflow steps (of enabled and disabled workflows) that send this template. */
export async function templateUsage(db: Db, projectId: string, templateId: string): Promise<TemplateUse[]> {
  const r = await db.execute<{ id: string; name: string; enabled: boolean; stepId: string; stepName: string }>(sql`
    select w.id, w.name, w.enabled, s.id as "stepId", s.name as "stepName"
    from workflow_steps s join workflows w on w.id = s.workflow_id
    where s.project_id = ${projectId} and w.project_id = ${projectId} and ${usesTemplate(templateId)}
    order by w.name, s.created_at`);
  return r.rows;
}

/**
 * Deletes the template unless a step of an ENABLED workflow sends it, in one statement.
 * @returns 'deleted', 'missing' (no such template in the project) or 'in_use' with the workflow names.
 */
export async function deleteTemplateIfUnused(
  db: Db,
  projectId: string,
  id: string,
): Promise<{ outcome: 'deleted' | 'missing' } | { outcome: 'in_use'; workflows: string[] }> {
  const del = await db.execute(sql`
    delete from templates t where t.id = ${id} and t.project_id = ${projectId}
      and not exists (select 1 from workflow_steps s join workflows w on w.id = s.workflow_id
                      where s.project_id = ${projectId} and w.enabled and ${usesTemplate(id)})
    returning t.id`);
  if (del.rows.length) return { outcome: 'deleted' };
  const r = await db.execute<{ present: boolean; workflows: string[] }>(sql`
    select exists (select 1 from templates where id = ${id} and project_id = ${projectId}) as present,
      coalesce((select array_agg(distinct w.name) from workflow_steps s join workflows w on w.id = s.workflow_id
                where s.project_id = ${projectId} and w.enabled and ${usesTemplate(id)}), '{}') as workflows`);
  const { present, workflows } = r.rows[0];
  return present ? { outcome: 'in_use', workflows } : { outcome: 'missing' };
}
