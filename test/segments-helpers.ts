import { sql } from 'drizzle-orm';
import { recordEvent } from '../src/events/emit.js';
import { newId } from '../src/lib/ids.js';
import type { Harness } from './harness.js';
import type { CompileContext } from '../src/segments/compile.js';
import { contactsMatching } from '../src/segments/match.js';

/** Test fixtures of the segments feature: contacts and events written directly, and a matcher. */

export interface ContactOpts {
  subscribed?: boolean;
  createdAt?: Date;
  updatedAt?: Date;
}

/** Inserts a contact by SQL; answers its id. */
export async function addContact(
  h: Harness,
  projectId: string,
  email: string,
  data: unknown = {},
  o: ContactOpts = {},
): Promise<string> {
  const id = newId();
  const created = o.createdAt ?? h.clock.now();
  await h.sql(
    'insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $7)',
    [id, projectId, email, o.subscribed ?? true, JSON.stringify(data), created, o.updatedAt ?? created],
  );
  return id;
}

/** Records an event at a chosen time through the one recording function. */
export async function addEvent(
  h: Harness,
  projectId: string,
  contactId: string,
  name: string,
  createdAt: Date,
): Promise<void> {
  await recordEvent(h.deps.db, { projectId, contactId, name, createdAt });
}

/** Emails (sorted) of the project's contacts that match `tree`. */
export async function matching(
  h: Harness,
  projectId: string,
  tree: unknown,
  opts: Partial<CompileContext> = {},
): Promise<string[]> {
  const q = await contactsMatching(h.deps, projectId, tree, opts);
  const r = await h.deps.db.execute<{ email: string }>(
    sql`select c.email from contacts c where c.id in (${q}) order by c.email`,
  );
  return r.rows.map((x) => x.email);
}

/** A one-filter tree. */
export const one = (field: string, operator: string, value?: unknown, unit?: string) => ({
  logic: 'AND',
  groups: [{ filters: [{ field, operator, ...(value !== undefined ? { value } : {}), ...(unit ? { unit } : {}) }] }],
});
