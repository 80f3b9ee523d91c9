import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { simpleBadRequest } from '../http/errors.js';
import { createTemplateBody, idParams, listTemplatesQuery, updateTemplateBody } from './templates.schema.js';
import * as svc from './templates.service.js';

/**
 * api.md §4.2 / §7.2: a create without `from` answers 400 with the plain `{error}` body. Checked before
 * schema validation so that this case never becomes a 422.
 */
async function requireFrom(req: FastifyRequest): Promise<void> {
  const b = req.body as Record<string, unknown> | undefined;
  if (b === undefined || (b !== null && typeof b === 'object' && !Array.isArray(b) && (b.from === undefined || b.from === null || b.from === ''))) {
    throw simpleBadRequest('From address is required');
  }
}

/** Templates (api.md §2.2, §4.2 Templates, §4.3 templates). Dashboard authentication. */
export async function templatesRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['templates'];

  r.post('/templates', {
    preValidation: requireFrom,
    schema: { tags, summary: 'Create a template; its sender domain must be verified (403 otherwise, 400 without from)', body: createTemplateBody },
  }, async (req, reply) => reply.code(201).send(await svc.createTemplate(deps, projectOf(req), req.body)));

  r.get('/templates', {
    schema: { tags, summary: 'Templates, offset-paginated; filter by type, search name/description/subject', querystring: listTemplatesQuery },
  }, async (req) => svc.listTemplates(deps, projectOf(req), req.query));

  r.get('/templates/:id', {
    schema: { tags, summary: 'One template', params: idParams },
  }, async (req) => svc.toTemplateOut(await svc.getTemplate(deps, projectOf(req), req.params.id)));

  r.patch('/templates/:id', {
    schema: { tags, summary: 'Change some fields of a template; a new from must be on a verified domain', params: idParams, body: updateTemplateBody },
  }, async (req) => svc.updateTemplate(deps, projectOf(req), req.params.id, req.body));

  r.delete('/templates/:id', {
    schema: { tags, summary: 'Delete a template (409 while an enabled workflow sends it)', params: idParams },
  }, async (req, reply) => {
    await svc.deleteTemplate(deps, projectOf(req), req.params.id);
    return reply.code(204).send();
  });

  r.post('/templates/:id/duplicate', {
    schema: { tags, summary: 'Copy a template as "<name> (copy)"; answers the new template', params: idParams },
  }, async (req, reply) => reply.code(201).send(await svc.duplicateTemplate(deps, projectOf(req), req.params.id)));

  r.get('/templates/:id/usage', {
    schema: { tags, summary: 'Campaigns (always none: campaigns copy content) and workflow steps that use a template', params: idParams },
  }, async (req) => svc.templateUsage(deps, projectOf(req), req.params.id));
}
