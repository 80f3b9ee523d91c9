import type { FastifyRequest } from 'fastify';
import { actorOf, auditChanges, recordAudit } from '../audit/audit.js';
import type { Deps } from '../deps.js';
import { AppError, invalid, notFound } from '../http/errors.js';
import { keyCacheFor } from '../http/key-cache.js';
import { randomToken, sha256 } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { deleteKey, findKey, insertKey, listKeys, lockAndCountKeys } from './api-keys.repo.js';
import { MAX_KEYS_PER_PROJECT, type ApiKeyOut, type CreateApiKeyBody } from './api-keys.schema.js';
import { SCOPED_KEY_PREFIX } from './key-auth.js';

/**
 * Scoped API keys of a project (issue 39): created, listed and deleted by the project's members
 * (`POST/GET/DELETE /projects/:id/api-keys`), each creation and deletion audited in its transaction.
 */

/** The fields of a key the audit log records: never the key or its hash. */
const AUDITED = ['name', 'scopes', 'allowedIps', 'expiresAt'] as const;

/** A fresh key: `psk_` + 32 random bytes base64url (256 bits); stored as SHA-256 and a short hint. */
export function generateScopedKey(): { value: string; hash: string; hint: string } {
  const value = `${SCOPED_KEY_PREFIX}${randomToken(32)}`;
  return { value, hash: sha256(value), hint: value.slice(0, SCOPED_KEY_PREFIX.length + 6) };
}

/**
 * Creates a key of `projectId` for the signed-in member of `req`.
 * @returns the listing with `key`, the only time the key is shown.
 * @throws AppError 422 for an expiry not in the future, 409 CONFLICT past {@link MAX_KEYS_PER_PROJECT}.
 */
export async function createApiKey(
  deps: Deps,
  req: FastifyRequest,
  projectId: string,
  body: CreateApiKeyBody,
): Promise<ApiKeyOut & { key: string }> {
  const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
  if (expiresAt && expiresAt.getTime() <= deps.clock.now().getTime()) {
    throw invalid('expiresAt', 'The expiry must be in the future', 'too_small', body.expiresAt);
  }
  const fresh = generateScopedKey();
  const id = newId();
  const allowedIps = body.allowedIps?.length ? [...new Set(body.allowedIps)] : null;
  const out = await deps.db.transaction(async (tx) => {
    if ((await lockAndCountKeys(tx, projectId)) >= MAX_KEYS_PER_PROJECT) {
      throw new AppError('CONFLICT', `A project can have at most ${MAX_KEYS_PER_PROJECT} scoped keys`, {
        suggestion: 'Delete keys that are no longer used.',
      });
    }
    await insertKey(tx, {
      id,
      projectId,
      name: body.name,
      keyHash: fresh.hash,
      keyHint: fresh.hint,
      scopes: body.scopes,
      allowedIps,
      expiresAt,
      createdBy: req.auth.userId ?? null,
    });
    const after = { name: body.name, scopes: body.scopes, allowedIps, expiresAt: expiresAt?.toISOString() ?? null };
    await recordAudit(tx, projectId, actorOf(req), {
      action: 'api_key.create',
      target: { type: 'api_key', id },
      changes: auditChanges(null, after, AUDITED),
    });
    return findKey(tx, projectId, id);
  });
  return { ...out!, key: fresh.value };
}

/** The project's scoped keys, newest first; never their secrets. */
export async function listApiKeys(deps: Deps, projectId: string): Promise<ApiKeyOut[]> {
  return listKeys(deps.db, projectId);
}

/**
 * Deletes a key: it stops working at once in every process (the deletion's NOTIFY, migration 0036,
 * empties every key cache when it commits; this process's own before the answer).
 * @throws AppError 404 for a key that is not the project's.
 */
export async function deleteApiKey(deps: Deps, req: FastifyRequest, projectId: string, keyId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const before = await findKey(tx, projectId, keyId);
    if (!before || !(await deleteKey(tx, projectId, keyId))) throw notFound('API key');
    await recordAudit(tx, projectId, actorOf(req), {
      action: 'api_key.delete',
      target: { type: 'api_key', id: keyId },
      changes: auditChanges(before, null, AUDITED),
    });
  });
  keyCacheFor(deps.pool).invalidate();
}
