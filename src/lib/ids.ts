import { createHash } from 'node:crypto';
import { v7 } from 'uuid';

/** A new UUIDv7 (time-ordered), the id of every resource. */
export const newId = (): string => v7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** True for a syntactically valid UUID of any version. */
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

/**
 * A UUID derived from `seed` (SHA-256), shaped as a version-8 (custom) UUID (RFC 9562 §5.8): the same
 * seed gives the same id, so an id built from others (a campaign's variant body) need not be stored.
 */
export function derivedUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
