import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { actorOf, recordAudit, type AuditEntry } from './audit.js';

/**
 * Records one entry in the running change's transaction: `action`, its target and `changes`
 * (`auditChanges`). `inProject` names the project when {@link audited} was given none (a change whose
 * project is known only once made: an invitation accepted from the user's own list).
 */
export type AuditFn = (
  action: string,
  target: AuditEntry['target'],
  changes?: AuditEntry['changes'],
  inProject?: string,
) => Promise<void>;

/**
 * How routes audit a change (the one pattern, issue 39): runs `work` in one transaction, handing it a
 * copy of `deps` whose `db` IS that transaction, so that the service's writes (and any job it queues
 * through SQL) and the entries `work` records through `audit` commit together or not at all. A
 * service's own `deps.db.transaction(...)` becomes a savepoint inside it, unchanged in effect.
 *
 * `work` reads the state before the change through the same `d` when the entry needs `[before,
 * after]`. An error thrown by `work` rolls everything back (no entry for a refused change).
 * The actor is the request's ({@link actorOf}); a session user's email is looked up by
 * {@link recordAudit} in the same transaction.
 */
export async function audited<T>(
  deps: Deps,
  req: FastifyRequest,
  projectId: string | null,
  work: (d: Deps, audit: AuditFn) => Promise<T>,
): Promise<T> {
  const actor = actorOf(req);
  return deps.db.transaction(async (tx) => {
    const d: Deps = { ...deps, db: tx as unknown as Db };
    const audit: AuditFn = (action, target, changes, inProject) => {
      const project = inProject ?? projectId;
      if (!project) throw new Error(`audit entry ${action} names no project`);
      return recordAudit(tx, project, actor, { action, target, changes });
    };
    return work(d, audit);
  });
}
