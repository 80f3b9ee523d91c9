import { createHash } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { QueryResult, QueryResultRow } from 'pg';

const dialect = new PgDialect();

/** Statement names by SQL text; bounded so that a caller with unbounded texts cannot grow it for ever. */
const names = new Map<string, string>();
const MAX_NAMES = 256;

/** What this module needs of a drizzle database or transaction: its session's `prepareQuery`. */
interface Executor {
  execute(query: SQL): Promise<unknown>;
}
type Session = {
  prepareQuery(
    q: { sql: string; params: unknown[] },
    fields: undefined,
    name: string,
    arrayMode: boolean,
  ): { execute(values?: Record<string, unknown>): Promise<unknown> };
};

/** The statement name of `text`: a hash of it, so a name never stands for two texts. */
function nameOf(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `pigeon_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (names.size < MAX_NAMES) names.set(text, name);
  }
  return name;
}

/**
 * Runs `query` like `db.execute(query)` (same result: pg's `QueryResult`, timestamps as drizzle returns
 * them, i.e. strings), on `db` or inside the transaction `db` is, but as a named prepared statement:
 * PostgreSQL parses and plans its text once per connection (after five runs it keeps a generic plan
 * when that costs no more than the custom ones), and each later run sends only the parameters. For
 * hot statements whose text is long and the same on every call: the `/v1/track` statement is 4.7 kB
 * of CTEs, and parsing and planning it each time halved the route's throughput (bench/send-track.ts).
 * The text must not vary with the input (values as parameters only, no lists spliced in): each
 * distinct text is a statement kept on every pooled connection. Falls back to a plain `execute` if
 * drizzle's session is not the shape this module knows (a drizzle upgrade): slower, never wrong.
 * @throws what the statement throws, as `db.execute` would.
 */
export async function executePrepared<T extends QueryResultRow>(db: Executor, query: SQL): Promise<QueryResult<T>> {
  const session = (db as unknown as { session?: Partial<Session> }).session;
  if (typeof session?.prepareQuery !== 'function') return (await db.execute(query)) as QueryResult<T>;
  const q = dialect.sqlToQuery(query);
  return (await session.prepareQuery(q, undefined, nameOf(q.sql), false).execute()) as QueryResult<T>;
}

/**
 * A hot statement whose text is rendered once per process. `build` gets stand-ins for the values
 * (drizzle placeholders, one per key of `V`), which it may only put in `sql` templates as values,
 * never test or transform in JavaScript: the text and parameter list it yields are kept, and each run
 * fills in the values and runs the statement as {@link executePrepared} does (named, so PostgreSQL
 * also parses and plans it once per connection). For statements of many nested fragments run per
 * mail or per batch: rendering the text of `markSentMany` (outcomes.ts) anew for each group of sent
 * mails was a large share of the delivery worker's allocations (bench/campaign.ts).
 * @returns the runner: `(db, values) => result`, `db` a drizzle database or transaction.
 * @throws what the statement throws, as `db.execute` would.
 */
export function hotStatement<V extends Record<string, unknown>, T extends QueryResultRow>(
  build: (values: V) => SQL,
): (db: Executor, values: V) => Promise<QueryResult<T>> {
  let compiled: { sql: string; params: unknown[]; name: string } | undefined;
  return async (db, values) => {
    const session = (db as unknown as { session?: Partial<Session> }).session;
    if (typeof session?.prepareQuery !== 'function') return (await db.execute(build(values))) as QueryResult<T>;
    if (!compiled) {
      const stand = new Proxy({}, { get: (_, key) => sql.placeholder(String(key)) }) as V;
      const q = dialect.sqlToQuery(build(stand));
      compiled = { sql: q.sql, params: q.params, name: nameOf(q.sql) };
    }
    return (await session.prepareQuery(compiled, undefined, compiled.name, false).execute(values)) as QueryResult<T>;
  };
}

/**
 * `ids` as ONE `uuid[]` parameter (an array literal), for `= any(…)`: drizzle expands a JavaScript
 * array into one parameter per element, which would make the statement's text vary with the list's
 * length and defeat {@link executePrepared}. The caller answers for the ids being UUIDs (ids read
 * from the database or checked by a schema); PostgreSQL rejects anything else.
 */
export function uuidArray(ids: readonly string[]): SQL {
  return sql`${`{${ids.join(',')}}`}::uuid[]`;
}
