import type { Db } from './pool.js';

/** A transaction of the app's drizzle database: what `db.transaction(cb)` passes to `cb`. */
export type Transaction = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * The database or one of its transactions. A function that takes a `Tx` runs its statements in the
 * caller's transaction when given one, alone (each statement atomic) when given the database.
 */
export type Tx = Db | Transaction;

/**
 * Anything that runs raw SQL (`execute`): for helpers whose statements are plain `sql` templates, so
 * that tests and benches may call them with any drizzle handle.
 */
export type SqlRunner = Pick<Db, 'execute'>;
