import { sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { likeEscape } from '../lib/like.js';

/** An ISO 8601 date or date-time in a string value: typed `date` in the inventory. */
const ISO_DATE_RE = String.raw`^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$`;

export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'object';

/**
 * Custom fields of the project's contacts: each key of `data`, its dominant type (jsonb_typeof, ISO
 * date strings as `date`, arrays and objects as `object`) and how many contacts have it; plus the
 * number of contacts. Two queries, all aggregation in SQL.
 */
export async function customFields(
  db: Db,
  projectId: string,
): Promise<{ total: number; fields: Array<{ field: string; type: FieldType; count: number }> }> {
  const [t, f] = await Promise.all([
    db.execute<{ n: number }>(sql`select count(*)::int as n from contacts where project_id = ${projectId}`),
    db.execute<{ field: string; type: FieldType; count: number }>(sql`
      with kv as (
        select k.key, case jsonb_typeof(k.value)
            when 'string' then case when k.value #>> '{}' ~ ${ISO_DATE_RE} then 'date' else 'string' end
            when 'number' then 'number' when 'boolean' then 'boolean' when 'null' then 'string'
            else 'object' end as type
        from contacts c cross join lateral jsonb_each(c.data) k
        where c.project_id = ${projectId}
      ), by_type as (select key, type, count(*) as n from kv group by key, type)
      select key as field, (array_agg(type order by n desc, type))[1] as type, sum(n)::int as count
      from by_type group by key order by key`),
  ]);
  return { total: t.rows[0].n, fields: f.rows };
}

/** Up to `limit` distinct values of `data.<field>` with the number of contacts holding each. */
export async function fieldValues(db: Db, projectId: string, field: string, limit = 100) {
  const r = await db.execute<{ value: unknown; count: number }>(sql`
    select c.data -> ${field} as value, count(*)::int as count from contacts c
    where c.project_id = ${projectId} and c.data ? ${field}
    group by 1 order by 2 desc, 1 limit ${limit}`);
  return r.rows;
}

const regexEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type Ref = { id: string; name: string };

/**
 * Where `data.<field>` is referenced: condition trees of segments and campaign
 * audiences (filters on `"data.<field>"` or a dotted path below it, found in the jsonb text), `{{field}}`
 * placeholders (also `{{ field }}`, `{{{field}}}`, `{{field ?? '…'}}`) in template and campaign
 * subjects and bodies, and workflow step configs (filters, placeholders, UPDATE_CONTACT keys).
 * One statement.
 */
export async function fieldUsage(db: Db, projectId: string, field: string) {
  const cond = `%"data.${likeEscape(field)}"%`;
  const condDotted = `%"data.${likeEscape(field)}.%`;
  // The placeholder name ends at a space, `}`, `|`, `?` or the end; so `{{plan}}` does not match `{{planet}}`.
  const ph = String.raw`\{\{\{?\s*` + regexEscape(field) + String.raw`(\s|\}|\?|\||$)`;
  const r = await db.execute<{ segments: Ref[]; campaigns: Ref[]; templates: Ref[]; workflows: Ref[] }>(sql`select
    (select coalesce(jsonb_agg(jsonb_build_object('id', id, 'name', name) order by created_at), '[]') from segments
      where project_id = ${projectId} and (condition::text like ${cond} escape '\\' or condition::text like ${condDotted} escape '\\')) as segments,
    (select coalesce(jsonb_agg(jsonb_build_object('id', id, 'name', name) order by created_at), '[]') from campaigns
      where project_id = ${projectId} and (audience_condition::text like ${cond} escape '\\' or audience_condition::text like ${condDotted} escape '\\'
        or subject ~ ${ph} or body ~ ${ph})) as campaigns,
    (select coalesce(jsonb_agg(jsonb_build_object('id', id, 'name', name) order by created_at), '[]') from templates
      where project_id = ${projectId} and (subject ~ ${ph} or body ~ ${ph})) as templates,
    (select coalesce(jsonb_agg(jsonb_build_object('id', w.id, 'name', w.name) order by w.created_at), '[]') from workflows w
      where w.project_id = ${projectId} and exists (select 1 from workflow_steps s where s.workflow_id = w.id and (
        s.config::text like ${cond} escape '\\' or s.config::text like ${condDotted} escape '\\'
        or s.config::text ~ ${ph} or coalesce(s.config -> 'updates', '{}'::jsonb) ? ${field}))) as workflows`);
  return r.rows[0];
}

/** Removes `data.<field>` from every contact of the project in one UPDATE; returns how many changed. */
export async function deleteField(db: Db, projectId: string, field: string, now: Date): Promise<number> {
  const r = await db.execute(sql`update contacts set data = data - ${field}, updated_at = ${now.toISOString()}
    where project_id = ${projectId} and data ? ${field}`);
  return r.rowCount ?? 0;
}
