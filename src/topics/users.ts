import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../db/tx.js';

/** A campaign, template or workflow that sends under a topic, or a form that joins it, as a 409 names it. */
export interface TopicUser {
  id: string;
  name: string;
}

/**
 * What uses a topic: the campaigns and templates that name it, the workflows with a SEND_EMAIL step
 * that does, and the hosted forms whose contacts join it.
 */
export interface TopicUsers {
  campaigns: TopicUser[];
  templates: TopicUser[];
  workflows: TopicUser[];
  forms: TopicUser[];
}

/**
 * What sends under the topic `topicId` of `projectId`, each list by name: campaigns and templates whose
 * `topic_id` is it (any status; the foreign keys refuse the delete of a topic they hold anyway), and
 * workflows (enabled or not: a disabled one may be enabled again) with a SEND_EMAIL step whose config
 * names it, and forms (forms/) that join it. DELETE /topics answers 409 naming these when any list is
 * non-empty, so no mail or form is left pointing at a topic that is gone. One statement; run it in the
 * deleting transaction.
 */
export async function topicUsers(tx: SqlRunner, projectId: string, topicId: string): Promise<TopicUsers> {
  const list = (from: ReturnType<typeof sql>) =>
    sql`coalesce((select json_agg(json_build_object('id', u.id, 'name', u.name) order by u.name, u.id)
      from (${from}) u), '[]'::json)`;
  const r = await tx.execute<TopicUsers & Record<string, unknown>>(sql`
    select ${list(sql`select id, name from campaigns where topic_id = ${topicId}::uuid and project_id = ${projectId}::uuid`)} as campaigns,
      ${list(sql`select id, name from templates where topic_id = ${topicId}::uuid and project_id = ${projectId}::uuid`)} as templates,
      ${list(sql`select w.id, w.name from workflows w where w.project_id = ${projectId}::uuid and exists (
        select 1 from workflow_steps s where s.workflow_id = w.id and s.type = 'SEND_EMAIL'
          and s.config->>'topicId' = ${topicId}::text)`)} as workflows,
      ${list(sql`select f.id, f.name from forms f join form_topics ft on ft.form_id = f.id
        where ft.topic_id = ${topicId}::uuid and f.project_id = ${projectId}::uuid`)} as forms`);
  return r.rows[0];
}
