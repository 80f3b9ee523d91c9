import { v7 } from 'uuid';

/** A new UUIDv7 (time-ordered), the id of every resource. */
export const newId = (): string => v7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** True for a syntactically valid UUID of any version. */
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);
