import type { Deps } from '../deps.js';
import { assertVerifiedSender } from '../domains/verified.js';
import { assertTemplatesParse } from '../emails/render/render.js';
import { contentOut, contentToCreate, contentToUpdate } from '../content/save.js';
import { AppError, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { projectTopic } from '../topics/topics.service.js';
import * as repo from './templates.repo.js';
import type { CreateTemplateInput, ListTemplatesQuery, TemplateOut, UpdateTemplateInput } from './templates.schema.js';

/** The API shape of a template row. */
export function toTemplateOut(t: repo.TemplateRow): TemplateOut {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    subject: t.subject,
    from: t.from,
    fromName: t.fromName,
    replyTo: t.replyTo,
    type: t.type,
    topicId: t.topicId,
    projectId: t.projectId,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    ...contentOut(t),
  };
}

/** Loads a template of the project. @throws AppError 404 for unknown ids, other projects' ids and non-uuids. */
export async function getTemplate(deps: Deps, projectId: string, id: string): Promise<repo.TemplateRow> {
  const row = isUuid(id) ? await repo.getTemplate(deps.db, projectId, id) : undefined;
  if (!row) throw notFound('Template');
  return row;
}

/**
 * Creates a template (`POST /templates`); an `mjml` or `blocks` body is compiled here, once (content/save.ts).
 * @throws AppError 422 when the subject or body does not parse (line and column named), MJML that strict
 *   validation refuses, a blocks image without alt text, or `topicId` not a topic of the project; 403
 *   unverified sender domain.
 */
export async function createTemplate(deps: Deps, projectId: string, input: CreateTemplateInput): Promise<TemplateOut> {
  assertTemplatesParse({ subject: input.subject });
  const content = await contentToCreate(input, input.subject, input.type);
  await assertVerifiedSender(deps.db, projectId, input.from, deps);
  const topicId = await projectTopic(deps.db, projectId, input.topicId);
  const now = deps.clock.now();
  const row = await repo.insertTemplate(deps.db, {
    id: newId(),
    projectId,
    name: input.name,
    description: input.description ?? null,
    subject: input.subject,
    ...content,
    from: input.from,
    fromName: input.fromName ?? null,
    replyTo: input.replyTo ?? null,
    type: input.type,
    topicId,
    createdAt: now,
    updatedAt: now,
  });
  return toTemplateOut(row);
}

/**
 * Partial update; a new `from` must be on a verified domain.
 * @throws AppError 422 template syntax or a `topicId` not of the project, 404, 403.
 */
export async function updateTemplate(
  deps: Deps,
  projectId: string,
  id: string,
  patch: UpdateTemplateInput,
): Promise<TemplateOut> {
  assertTemplatesParse({ subject: patch.subject });
  const row = await getTemplate(deps, projectId, id);
  const content = await contentToUpdate(row, { ...patch, blocks: patch.blocks ?? undefined });
  if (patch.from !== undefined) await assertVerifiedSender(deps.db, projectId, patch.from, deps);
  const set: Partial<repo.NewTemplateRow> = { updatedAt: deps.clock.now(), ...content };
  if (patch.topicId !== undefined) set.topicId = await projectTopic(deps.db, projectId, patch.topicId);
  for (const k of ['name', 'description', 'subject', 'from', 'fromName', 'replyTo', 'type'] as const) {
    if (patch[k] !== undefined) (set as Record<string, unknown>)[k] = patch[k];
  }
  const updated = await repo.updateTemplate(deps.db, projectId, id, set);
  if (!updated) throw notFound('Template');
  return toTemplateOut(updated);
}

/** Offset envelope `{data, page, pageSize, total, totalPages}`. */
export async function listTemplates(deps: Deps, projectId: string, q: ListTemplatesQuery) {
  const { rows, total } = await repo.listTemplates(deps.db, projectId, q);
  return {
    data: rows.map(toTemplateOut),
    page: q.page,
    pageSize: q.pageSize,
    total,
    totalPages: Math.ceil(total / q.pageSize),
  };
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
    ...t,
    id: newId(),
    name: `${t.name} (copy)`,
    createdAt: now,
    updatedAt: now,
  });
  return toTemplateOut(row);
}

/**
 * Where a template is used: campaigns never reference templates (they copy the
 * content), so `campaigns` is always empty; `workflows` lists each referencing step.
 * @throws AppError 404.
 */
export async function templateUsage(deps: Deps, projectId: string, id: string) {
  await getTemplate(deps, projectId, id);
  return { campaigns: [] as never[], workflows: await repo.templateUsage(deps.db, projectId, id) };
}
