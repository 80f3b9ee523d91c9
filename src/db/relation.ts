import { sql, type SQL } from 'drizzle-orm';

/**
 * A relation one module's SQL gives and another's composes into the same statement: a CTE, a table
 * or a subquery, typed by the columns it has. A fragment that reads a relation takes a
 * `Relation<the columns it reads>`; a producer returns a `Relation<the columns it gives>`; TypeScript
 * then refuses to pass a relation that lacks a column the reader needs (a relation with more columns
 * fits), where before two folders agreed on alias names and column lists by convention only.
 * The column names are checked against each other, not against the SQL text: the producer's
 * declaration is what its SQL must keep true.
 */
export interface Relation<C extends string> {
  /** The relation as it is written after FROM, e.g. `up` or `(select …)`. */
  readonly from: SQL;
  /** Phantom type only (never set): contravariant in the columns, so more columns fit fewer. */
  readonly columns?: (column: C) => void;
}

/** Declares that `from` (a CTE's name, a table, a parenthesised subquery) has the columns `C`. */
export function relation<C extends string>(from: SQL): Relation<C> {
  return { from };
}

/** A CTE `name as (body)` of a WITH list, and the relation its name then gives. */
export function cte<C extends string>(name: string, body: SQL): { def: SQL; rel: Relation<C> } {
  const id = sql.raw(name);
  return { def: sql`${id} as (${body})`, rel: relation<C>(id) };
}

/** `union all` of relations with the same columns, as one relation. */
export function unionAll<C extends string>(...rels: Relation<C>[]): Relation<C> {
  return relation<C>(
    sql`(${sql.join(
      rels.map((r) => sql`select * from ${r.from} x`),
      sql` union all `,
    )})`,
  );
}
