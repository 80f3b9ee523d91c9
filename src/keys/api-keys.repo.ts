import { and, count, desc, eq } from 'drizzle-orm';
import { apiKeys, projects, users } from '../db/schema.js';
import type { Tx } from '../db/tx.js';
import type { ApiKeyOut } from './api-keys.schema.js';

/** The SQL of `api_keys` (issue 39): only the key's SHA-256 and hint are ever stored. */

/** The columns of a new key row. */
export interface NewApiKeyRow {
  id: string;
  projectId: string;
  name: string;
  keyHash: string;
  keyHint: string;
  scopes: string[];
  allowedIps: string[] | null;
  expiresAt: Date | null;
  createdBy: string | null;
}

const listed = {
  id: apiKeys.id,
  name: apiKeys.name,
  hint: apiKeys.keyHint,
  scopes: apiKeys.scopes,
  allowedIps: apiKeys.allowedIps,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  createdAt: apiKeys.createdAt,
  createdById: users.id,
  createdByEmail: users.email,
};

interface ListedRow {
  id: string;
  name: string;
  hint: string;
  scopes: string[];
  allowedIps: string[] | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  createdById: string | null;
  createdByEmail: string | null;
}

const toOut = (r: ListedRow): ApiKeyOut => ({
  id: r.id,
  name: r.name,
  hint: r.hint,
  scopes: r.scopes,
  allowedIps: r.allowedIps,
  expiresAt: r.expiresAt?.toISOString() ?? null,
  lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
  createdAt: r.createdAt.toISOString(),
  createdBy: r.createdById && r.createdByEmail ? { id: r.createdById, email: r.createdByEmail } : null,
});

/**
 * Locks the project's row for the rest of `tx` (so that concurrent creations count one after the
 * other) and counts its keys.
 */
export async function lockAndCountKeys(tx: Tx, projectId: string): Promise<number> {
  await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).for('update');
  const [row] = await tx.select({ n: count() }).from(apiKeys).where(eq(apiKeys.projectId, projectId));
  return row?.n ?? 0;
}

/** Inserts a key row. */
export async function insertKey(tx: Tx, row: NewApiKeyRow): Promise<void> {
  await tx.insert(apiKeys).values(row);
}

/** The project's keys, newest first, with their creator's email. */
export async function listKeys(tx: Tx, projectId: string): Promise<ApiKeyOut[]> {
  const rows = await tx
    .select(listed)
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.createdBy))
    .where(eq(apiKeys.projectId, projectId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows.map(toOut);
}

/** One key of the project as listed, or null. */
export async function findKey(tx: Tx, projectId: string, keyId: string): Promise<ApiKeyOut | null> {
  const [row] = await tx
    .select(listed)
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.createdBy))
    .where(and(eq(apiKeys.projectId, projectId), eq(apiKeys.id, keyId)))
    .limit(1);
  return row ? toOut(row) : null;
}

/** Deletes the project's key `keyId`. @returns whether it existed. */
export async function deleteKey(tx: Tx, projectId: string, keyId: string): Promise<boolean> {
  const rows = await tx
    .delete(apiKeys)
    .where(and(eq(apiKeys.projectId, projectId), eq(apiKeys.id, keyId)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}
