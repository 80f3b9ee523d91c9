import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../db/tx.js';
import { setTopicsOfContacts } from '../topics/membership.js';
import { topicChoices } from '../topics/topics.schema.js';
import { resolveWithLookup, topicKeyLookup, unknownTopicsMessage } from '../topics/topics.service.js';
import { csvBoolean, type ColumnTarget } from './import-mapping.js';

/**
 * The topic columns of a CSV import (issue 35): `topics` columns, whose cells hold JSON
 * `{"<topic id or name>": true|false}`, and `topic:<topicId>` columns, whose cells say yes or no to one
 * topic. An empty cell changes nothing. A file without such columns never reaches this module's
 * queries, so its import stays one set-based statement per batch (import.ts).
 */
export interface TopicColumns {
  /** Indexes of `topics` columns. */
  objects: number[];
  /** `topic:<topicId>` columns: index, the topic, and the header (for row messages). */
  single: Array<{ index: number; topicId: string; header: string }>;
  /** The project's topics by id or name (topics.service.ts topicKeyLookup). */
  lookup: (key: string) => string | undefined;
  /** Headers of `topic:<topicId>` columns whose topic is not the project's (deleted since the upload). */
  missing: string[];
}

/**
 * The topic columns of a file with header `header` and column targets `targets`, with the project's
 * topics read once. @returns null when the file has none (nothing is read).
 */
export async function topicColumns(
  db: SqlRunner,
  projectId: string,
  header: string[],
  targets: ColumnTarget[],
): Promise<TopicColumns | null> {
  if (!targets.some((t) => t === 'topics' || t.startsWith('topic:'))) return null;
  const lookup = await topicKeyLookup(db, projectId);
  const cols: TopicColumns = { objects: [], single: [], lookup, missing: [] };
  targets.forEach((t, index) => {
    if (t === 'topics') cols.objects.push(index);
    else if (t.startsWith('topic:')) {
      const topicId = lookup(t.slice(6));
      if (topicId) cols.single.push({ index, topicId, header: header[index] });
      else cols.missing.push(header[index]);
    }
  });
  return cols;
}

/**
 * The topic choices of one CSV record (`record`, cells by column), by topic id; a later column wins
 * over an earlier one for the same topic. @returns the choices (empty: no change), or the message of
 * the row's error: a `topics` cell that is not a JSON object of booleans or names an unknown topic, or
 * a `topic:<topicId>` cell that is not yes/no.
 */
export function rowTopicChoices(cols: TopicColumns, record: string[]): Map<string, boolean> | { error: string } {
  const out = new Map<string, boolean>();
  for (const index of cols.objects) {
    const cell = (record[index] ?? '').trim();
    if (cell === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(cell);
    } catch {
      parsed = undefined;
    }
    const choices = topicChoices.safeParse(parsed);
    if (!choices.success) {
      return { error: `Invalid topics value: ${cell.slice(0, 100)} (use JSON like {"News": true})` };
    }
    const { resolved, unknown } = resolveWithLookup(cols.lookup, choices.data);
    if (unknown.length) return { error: unknownTopicsMessage(unknown) };
    for (const [id, v] of resolved) out.set(id, v);
  }
  for (const c of cols.single) {
    const v = csvBoolean(record[c.index]);
    if (v === null) continue;
    if (v === undefined) {
      const cell = (record[c.index] ?? '').trim().slice(0, 50);
      return { error: `Invalid value for the topic column "${c.header}": ${cell} (use yes or no)` };
    }
    out.set(c.topicId, v);
  }
  return out;
}

/**
 * Applies the topic choices of a batch's rows after their upsert, in the import's transaction `tx`:
 * one look-up of the contacts' ids by email, then every change of the batch through the membership
 * writer at once (topics/membership.ts setTopicsOfContacts, consent source `import`, one `topic.joined`
 * or `topic.left` event per real change). Rows must have distinct emails (normalized), already upserted.
 */
export async function applyImportTopics(
  tx: SqlRunner,
  projectId: string,
  rows: Array<{ email: string; topics: Map<string, boolean> }>,
  now: Date,
): Promise<void> {
  const todo = rows.filter((r) => r.topics.size);
  if (!todo.length) return;
  const emails = JSON.stringify(todo.map((r) => r.email));
  const ids = await tx.execute<{ id: string; email: string }>(sql`
    select c.id, c.email from contacts c
    where c.project_id = ${projectId} and c.email in (select jsonb_array_elements_text(${emails}::jsonb))`);
  const byEmail = new Map(ids.rows.map((r) => [r.email, r.id]));
  // Every row was upserted just before in this transaction, so each has its id.
  const entries = todo.flatMap((r) => {
    const contactId = byEmail.get(r.email);
    return contactId ? [{ contactId, choices: r.topics }] : [];
  });
  await setTopicsOfContacts(tx, projectId, entries, now, { source: 'import' });
}
