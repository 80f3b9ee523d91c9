import { sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { auditLog, users, type AuditActorType } from '../db/schema.js';
import type { Tx } from '../db/tx.js';
import { hmac, sha256 } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';

/**
 * The audit log's one writer (issue 39): every audited change calls {@link recordAudit} with the
 * transaction that makes the change, so an entry exists exactly when the change does. Entries are
 * never changed (a trigger refuses updates, migration 0035) and no route deletes them.
 */

/** Who made a change: a signed-in user (`label` their email), a scoped or secret key (`label` its name), or Pigeon itself. */
export interface AuditActor {
  type: AuditActorType;
  id: string | null;
  label: string | null;
  ip: string | null;
  userAgent: string | null;
}

/** What changed: `action` is `<target type>.<verb>` (`template.update`, `member.remove`). */
export interface AuditEntry {
  action: string;
  target: { type: string; id: string | null };
  /** Field → `[before, after]`; build it with {@link auditChanges} so secrets never appear. */
  changes?: Record<string, [unknown, unknown]> | null;
}

/** Fields whose values are never recorded, only that they changed (`"[secret]"`). */
const SECRET_FIELD =
  /secret|password|token|authorization|cookie|key(hash)?$|apikey|credential|privatekey|dkim.*key|signing/i;

/** Longest value, as JSON, recorded as it is; a longer one (an HTML body, a workflow graph) is summarised. */
const LARGEST_VALUE = 300;

/**
 * HTTP headers (a WEBHOOK step's) carry credentials under any name: every value of a `headers` object
 * is a secret; anything else is {@link masked} further down.
 */
function maskedIn(key: string, value: unknown): unknown {
  if (key === 'headers' && value && typeof value === 'object' && !Array.isArray(value))
    return Object.fromEntries(Object.keys(value).map((h) => [h, '[secret]']));
  return masked(value);
}

/** `value` with the values of secret-named keys at any depth replaced by `"[secret]"`. */
function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) && v != null ? '[secret]' : maskedIn(k, v)]),
  );
}

/** `value`, or for a large one `"[<n> characters, sha256 <12 hex>]"`: enough to see that and how it changed. */
function recordable(raw: unknown): unknown {
  const value = masked(raw);
  const json = JSON.stringify(value);
  if (json === undefined || json.length <= LARGEST_VALUE) return value;
  return `[${json.length} characters, sha256 ${sha256(json).slice(0, 12)}]`;
}

/**
 * `changes` as stored: whoever built them (with {@link auditChanges} or by hand), a secret-named field
 * is `"[secret]"`, secrets inside values are masked and large values summarised. Idempotent.
 */
function safeChanges(changes: Record<string, [unknown, unknown]>): Record<string, [unknown, unknown]> {
  return Object.fromEntries(
    Object.entries(changes).map(([f, [b, a]]) => [
      f,
      SECRET_FIELD.test(f) ? ['[secret]', '[secret]'] : [recordable(b), recordable(a)],
    ]),
  );
}

/**
 * Field → `[before, after]` for the fields of `after` whose value differs from `before` (deep, by
 * JSON). Secret fields (names matching passwords, tokens, keys, secrets) appear as `"[secret]"`;
 * values longer than 300 characters as JSON (bodies, graphs) as their length and a hash prefix.
 * `before` null: a creation (every given field, before null); `after` null: a deletion.
 */
export function auditChanges(
  beforeObject: object | null,
  afterObject: object | null,
  fields?: readonly string[],
): Record<string, [unknown, unknown]> {
  const before = beforeObject as Record<string, unknown> | null;
  const after = afterObject as Record<string, unknown> | null;
  const names = fields ?? [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  const out: Record<string, [unknown, unknown]> = {};
  for (const f of names) {
    const b = before?.[f] ?? null;
    const a = after?.[f] ?? null;
    if (JSON.stringify(b) === JSON.stringify(a)) continue;
    out[f] = SECRET_FIELD.test(f) ? ['[secret]', '[secret]'] : [recordable(b), recordable(a)];
  }
  return out;
}

/**
 * How an entry names a mail address (a suppression's): `addr_` and 16 characters of its HMAC under
 * the instance secret, never the address itself, so that erasing a contact (issue 39) leaves no trace
 * of it in this append-only table, while the same address always gets the same name.
 */
export function addressRef(secret: string, email: string): string {
  return `addr_${hmac(secret, email.trim().toLowerCase()).slice(0, 16)}`;
}

/**
 * The actor of an authenticated request: the session's user (label: `email`, which the caller
 * passes when it has it), the scoped key, or the project's secret key.
 */
export function actorOf(req: FastifyRequest, email?: string | null): AuditActor {
  const ip = req.ip ?? null;
  const userAgent = (req.headers['user-agent'] ?? '').slice(0, 300) || null;
  const a = req.auth;
  if (a?.key) return { type: 'key', id: a.key.id, label: a.key.name, ip, userAgent };
  if (a?.via === 'session' && a.userId) return { type: 'user', id: a.userId, label: email ?? null, ip, userAgent };
  if (a?.via === 'secret') return { type: 'key', id: null, label: 'Secret key', ip, userAgent };
  return { type: 'system', id: null, label: null, ip, userAgent };
}

/**
 * Appends one entry to `projectId`'s audit log in `tx` (the change's own transaction). A user actor
 * without a label gets the user's current email, looked up in the same statement. `changes` pass
 * through the same masking as {@link auditChanges} (secret fields, secrets nested in values, HTTP
 * headers, large values), so hand-built changes cannot record a secret either.
 */
export async function recordAudit(tx: Tx, projectId: string, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await tx.insert(auditLog).values({
    id: newId(),
    projectId,
    actorType: actor.type,
    actorId: actor.id,
    actorLabel:
      actor.label ??
      (actor.type === 'user' && actor.id
        ? sql`(select ${users.email} from ${users} where ${users.id} = ${actor.id}::uuid)`
        : null),
    ip: actor.ip,
    userAgent: actor.userAgent,
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    changes: entry.changes && Object.keys(entry.changes).length ? safeChanges(entry.changes) : null,
  });
}
