import type { Deps } from '../deps.js';
import { domainOf, findVerifiedDomain } from '../domains/verified.js';
import { AppError, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import * as repo from './templates.repo.js';
import type { CreateTemplateInput, ListTemplatesQuery, TemplateOut, UpdateTemplateInput } from './templates.schema.js';

/** The API shape of a template row (api.md §2.2). */
export function toTemplateOut(t: repo.TemplateRow): TemplateOut {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    subject: t.subject,
    body: t.body,
    from: t.from,
    fromName: t.fromName,
    replyTo: t.replyTo,
    type: t.type,
    projectId: t.projectId,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

/**
 * The sender's domain (or a parent) must be verified for the project (api.md §2.2).
 * @throws AppError 403 carried with code INTERNAL_SERVER_ERROR, as api.md §7.3 states for templates.
 */
async function assertVerifiedSender(deps: Deps, projectId: string, from: string): Promise<void> {
  if (await findVerifiedDomain(deps.db, projectId, from)) return;
  throw new AppError('INTERNAL_SERVER_ERROR', `The domain ${domainOf(from)} of "from" is not verified for this project`, {
    status: 403,
    suggestion: 'Add the domain with POST /domains, publish its DKIM record, then verify it.',
  });
}

/** Loads a template of the project. @throws AppError 404 for unknown ids, other projects' ids and non-uuids. */
export async function getTemplate(deps: Deps, projectId: string, id: string): Promise<repo.TemplateRow> {
  const row = isUuid(id) ? await repo.getTemplate(deps.db, projectId, id) : undefined;
  if (!row) throw notFound('Template');
  return row;
}

/** Creates a template (api.md §4.2 POST /templates). @throws AppError 403 unverified sender domain. */
export async function createTemplate(deps: Deps, projectId: string, input: CreateTemplateInput): Promise<TemplateOut> {
  await assertVerifiedSender(deps, projectId, input.from);
  const now = deps.clock.now();
  const row = await repo.insertTemplate(deps.db, {
    id: newId(),
    projectId,
    name: input.name,
    description: input.description ?? null,
    subject: input.subject,
    body: input.body,
    from: input.from,
    fromName: input.fromName ?? null,
    replyTo: input.replyTo ?? null,
    type: input.type,
    createdAt: now,
    updatedAt: now,
  });
  return toTemplateOut(row);
}

/** Partial update; a new `from` must be on a verified domain. @throws AppError 404, 403. */
export async function updateTemplate(deps: Deps, projectId: string, id: string, patch: UpdateTemplateInput): Promise<TemplateOut> {
  await getTemplate(deps, projectId, id);
  if (patch.from !== undefined) await assertVerifiedSender(deps, projectId, patch.from);
  const set: Partial<repo.NewTemplateRow> = { updatedAt: deps.clock.now() };
  for (const k of ['name', 'description', 'subject', 'body', 'from', 'fromName', 'replyTo', 'type'] as const) {
    if (patch[k] !== undefined) (set as Record<string, unknown>)[k] = patch[k];
  }
  const row = await repo.updateTemplate(deps.db, projectId, id, set);
  if (!row) throw notFound('Template');
  return toTemplateOut(row);
}

/** Offset envelope of api.md §2.10. */
export async function listTemplates(deps: Deps, projectId: string, q: ListTemplatesQuery) {
  const { rows, total } = await repo.listTemplates(deps.db, projectId, q);
  return { data: rows.map(toTemplateOut), page: q.page, pageSize: q.pageSize, total, totalPages: Math.ceil(total / q.pageSize) };
}

/**
 * Deletes a template. Campaigns copy their content and hold no template reference, so only workflow
 * steps can use one: a step of an ENABLED workflow blocks the delete.
 * @throws AppError 404; 409 CONFLICT naming the workflows.
 */
export async function deleteTemplate(deps: Deps, projectId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound('Template');
  const r = await repo.deleteTemplateIfUnused(deps.db, projectId, id);
  if (r.outcome === 'missing') throw notFound('Template');
  if (r.outcome === 'in_use') {
    throw new AppError('CONFLICT', `Template is used by enabled workflow(s): ${r.workflows.join(', ')}`, {
      details: { workflows: r.workflows },
      suggestion: 'Disable those workflows or point their steps at another template first.',
    });
  }
}

/** Copies a template as "<name> (copy)". @throws AppError 404. */
export async function duplicateTemplate(deps: Deps, projectId: string, id: string): Promise<TemplateOut> {
  const t = await getTemplate(deps, projectId, id);
  const now = deps.clock.now();
  const row = await repo.insertTemplate(deps.db, {
    ...t, id: newId(), name: `${t.name} (copy)`, createdAt: now, updatedAt: now,
  });
  return toTemplateOut(row);
}

/**
 * Where a template is used (api.md §4.3): campaigns never reference templates (they copy the
 * content), so `campaigns` is always empty; `workflows` lists each referencing step.
 * @throws AppError 404.
 */
export async function templateUsage(deps: Deps, projectId: string, id: string) {
  await getTemplate(deps, projectId, id);
  return { campaigns: [] as never[], workflows: await repo.templateUsage(deps.db, projectId, id) };
}
