import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { actorOf, auditChanges, recordAudit, type AuditEntry } from './audit.js';

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

/** The steps of an audited create or update: see {@link auditedCreate} and {@link auditedUpdate}. */
interface AuditedSteps<T> {
  /** The record as it was, read through the change's transaction (update only). */
  load?: (d: Deps) => Promise<object>;
  /** The change itself, through the transaction's `d`. */
  change: (d: Deps) => Promise<T>;
  /** The fields whose `[before, after]` the entry holds; default: the keys the request body sent. */
  fields?: readonly string[];
}

/**
 * A create route's change and its `<type>.create` entry in one {@link audited} transaction of the
 * request's project: every field of `fields` (default: the body's keys) with before null.
 * @returns what `change` returned (its `id` names the entry's target).
 */
export function auditedCreate<T extends { id: string }>(
  deps: Deps,
  req: FastifyRequest,
  type: string,
  steps: Omit<AuditedSteps<T>, 'load'>,
): Promise<T> {
  return audited(deps, req, projectOf(req), async (d, audit) => {
    const after = await steps.change(d);
    await audit(`${type}.create`, { type, id: after.id }, auditChanges(null, after, steps.fields ?? bodyKeys(req)));
    return after;
  });
}

/**
 * An update route's change and its `<type>.update` entry in one {@link audited} transaction of the
 * request's project: `load` reads the record as it was, `change` updates it, and the entry holds the
 * `[before, after]` of `fields` (default: the body's keys) that differ.
 * @returns what `change` returned. Errors of `load` (404) or `change` roll everything back.
 */
export function auditedUpdate<T extends { id: string }>(
  deps: Deps,
  req: FastifyRequest,
  type: string,
  steps: AuditedSteps<T> & { load: (d: Deps) => Promise<object> },
): Promise<T> {
  return audited(deps, req, projectOf(req), async (d, audit) => {
    const before = await steps.load(d);
    const after = await steps.change(d);
    await audit(`${type}.update`, { type, id: after.id }, auditChanges(before, after, steps.fields ?? bodyKeys(req)));
    return after;
  });
}

const bodyKeys = (req: FastifyRequest): string[] => Object.keys((req.body ?? {}) as object);
