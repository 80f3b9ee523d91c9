import { sql, type SQL } from 'drizzle-orm';

/**
 * A UUIDv7 (RFC 9562 §5.7) made in SQL, for rows inserted set-based (PostgreSQL has no `uuidv7()`
 * before 18): the 48-bit Unix millisecond time of `at` (a timestamptz expression, or a number of
 * milliseconds), the version bits 0111, and random bits from `gen_random_uuid()`. Ids of one
 * millisecond are in random order.
 */
export function sqlUuidV7(at: SQL | number): SQL {
  const ms = typeof at === 'number' ? sql`${at}::bigint` : sql`(extract(epoch from ${at}) * 1000)::bigint`;
  return sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing substring(int8send(${ms}) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;
}
