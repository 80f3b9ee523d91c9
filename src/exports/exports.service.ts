import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import { recordAudit, type AuditActor } from '../audit/audit.js';
import type { Deps } from '../deps.js';
import { AppError, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { enqueue } from '../worker/jobs.js';
import { runExportJob } from './exports.jobs.js';
import * as repo from './exports.repo.js';
import type { createExportBody, ExportOut } from './exports.schema.js';
import { downloadToken } from './token.js';

/** At most this many exports of a project wait or run at once; more are refused (429). */
export const MAX_PENDING_EXPORTS = 5;

/** The API's view of an export row; `url` is a fresh signed link while the file is there. */
export function exportView(deps: Deps, e: repo.ExportRow): ExportOut {
  const expired = e.state === 'done' && !e.storageKey;
  const url =
    e.state === 'done' && e.storageKey
      ? `${deps.config.PUBLIC_URL}/exports/${e.id}/download?token=${downloadToken(deps.secret, e.id, deps.clock.now())}`
      : null;
  return {
    id: e.id,
    kind: e.kind,
    format: e.format,
    filter: e.filter,
    state: expired ? 'expired' : e.state,
    rowsDone: e.rowsDone,
    rowsTotal: e.rowsTotal,
    bytes: e.bytes,
    error: e.error,
    createdAt: e.createdAt.toISOString(),
    startedAt: e.startedAt?.toISOString() ?? null,
    finishedAt: e.finishedAt?.toISOString() ?? null,
    expiresAt: e.expiresAt?.toISOString() ?? null,
    url,
  };
}

/**
 * `POST /exports`: records a queued export and its job (Graphile queue `exports:<projectId>`: one runs
 * at a time per project) and the audit entry `export.create`, in one transaction.
 * @throws AppError 429 when {@link MAX_PENDING_EXPORTS} of the project's exports are already waiting or running.
 */
export async function createExport(
  deps: Deps,
  projectId: string,
  body: z.infer<typeof createExportBody>,
  actor: AuditActor,
): Promise<ExportOut> {
  const row = await deps.db.transaction(async (tx) => {
    // Two concurrent requests must not both pass the cap.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`exports:${projectId}`}))`);
    if ((await repo.pendingCount(tx, projectId)) >= MAX_PENDING_EXPORTS) {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `This project already has ${MAX_PENDING_EXPORTS} exports waiting or running; start another when one has finished.`,
        { headers: { 'Retry-After': '60' } },
      );
    }
    const e = await repo.insertExport(tx, {
      id: newId(),
      projectId,
      kind: body.kind,
      format: body.format,
      filter: body.filter ?? null,
      createdBy: { type: actor.type, id: actor.id },
      at: deps.clock.now(),
    });
    await enqueue(tx, runExportJob, { exportId: e.id }, { queueName: `exports:${projectId}` });
    await recordAudit(tx, projectId, actor, {
      action: 'export.create',
      target: { type: 'export', id: e.id },
      changes: { kind: [null, body.kind], format: [null, body.format], filter: [null, body.filter ?? null] },
    });
    return e;
  });
  return exportView(deps, row);
}

/** `GET /exports`: the project's latest 50 exports, newest first. */
export async function listExportViews(deps: Deps, projectId: string): Promise<{ data: ExportOut[] }> {
  return { data: (await repo.listExports(deps.db, projectId)).map((e) => exportView(deps, e)) };
}

/** `GET /exports/:id`. @throws AppError 404 for an unknown id, another project's, or a non-uuid. */
export async function getExportView(deps: Deps, projectId: string, id: string): Promise<ExportOut> {
  const e = isUuid(id) ? await repo.getExport(deps.db, projectId, id) : null;
  if (!e) throw notFound('Export');
  return exportView(deps, e);
}
