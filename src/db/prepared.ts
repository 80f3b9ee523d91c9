import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';

const dialect = new PgDialect();

/** Statement names by SQL text; bounded so that a caller with unbounded texts cannot grow it for ever. */
const names = new Map<string, string>();
const MAX_NAMES = 64;

/**
 * Runs `query` on `pool` as a named prepared statement: PostgreSQL parses and plans its text once per
 * connection (after five runs it keeps a generic plan when that costs no more than the custom ones),
 * and each later run sends only the parameters. For hot statements whose text is long and the same on
 * every call (the `/v1/track` statement is 4.7 kB of CTEs: re-parsing and planning it was most of its
 * database time). The text must not vary with the input (values as parameters only, no lists
 * spliced in): each distinct text is a statement kept on every pooled connection.
 * The result's rows use pg's default type parsers (timestamps as Date), not drizzle's.
 * @returns pg's result. @throws what pg throws (the statement's error, a lost connection).
 */
export function executePrepared<T extends pg.QueryResultRow>(pool: pg.Pool, query: SQL): Promise<pg.QueryResult<T>> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  let name = names.get(text);
  if (!name) {
    name = `pigeon_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (names.size < MAX_NAMES) names.set(text, name);
  }
  return pool.query<T>({ name, text, values: params as unknown[] });
}
