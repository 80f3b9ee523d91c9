import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import { projectTopic } from '../topics/topics.service.js';
import type { BulkKind } from './bulk.js';
import { bulkContactsJob, importContactsJob } from './contacts.jobs.js';
import * as jobs from './jobs.repo.js';

/** Largest CSV accepted by `POST /contacts/import`. */
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Queues a CSV import. The file is kept in the job row (`input.file`, base64, so any
 * bytes fit and a worker on another machine can read it) and removed when the job ends; `mapping`
 * (`{column: target}`, import-mapping.ts) beside it.
 * @returns the job id for `GET /contacts/import/:jobId`.
 * @throws AppError 422 (field `mapping`, code `unknown_topic`) when a `topic:<topicId>` target names no
 *   topic of the project; nothing is queued.
 */
export async function queueImport(
  deps: Deps,
  projectId: string,
  file: Buffer,
  filename: string | undefined,
  mapping?: Record<string, string>,
): Promise<string> {
  for (const target of Object.values(mapping ?? {})) {
    if (target.startsWith('topic:')) await projectTopic(deps.db, projectId, target.slice(6), 'mapping');
  }
  return jobs.enqueue(
    deps.db,
    projectId,
    'import',
    importContactsJob,
    { file: file.toString('base64'), filename: filename ?? null, size: file.length, mapping: mapping ?? null },
    deps.clock.now(),
  );
}

/**
 * Queues a bulk action over 1..1,000 contact ids; `source` (`api` or `dashboard`: who asked) goes into
 * the consent entries of the subscriptions it changes.
 */
export async function queueBulk(
  deps: Deps,
  projectId: string,
  kind: BulkKind,
  contactIds: string[],
  source: 'api' | 'dashboard',
): Promise<string> {
  return jobs.enqueue(deps.db, projectId, kind, bulkContactsJob, { contactIds, source }, deps.clock.now());
}

/**
 * `{id, state, progress, result, failedReason}` of one of the project's import jobs or bulk jobs
 * @throws 404 for an unknown id, another project's job or a job of the other family.
 */
export async function jobStatus(
  deps: Deps,
  projectId: string,
  id: string,
  family: 'import' | 'bulk',
): Promise<jobs.JobStatus> {
  const kinds: jobs.JobKind[] =
    family === 'import' ? ['import'] : ['bulk-subscribe', 'bulk-unsubscribe', 'bulk-delete'];
  const s = isUuid(id) ? await jobs.status(deps.db, projectId, id, kinds) : undefined;
  if (!s) throw notFound(family === 'import' ? 'Import job' : 'Bulk job');
  return s;
}
