import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { auditChanges } from '../audit/audit.js';
import { audited, auditedCreate, auditedUpdate } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { simpleBadRequest } from '../http/errors.js';
import { noContent, replies, simpleOrEnvelope } from '../http/responses.js';
import {
  createTemplateBody,
  idParams,
  listTemplatesQuery,
  previewTemplateBody,
  templateListOut,
  templateOutSchema,
  templatePreviewOut,
  templateTestBody,
  templateTestOut,
  templateUsageOut,
  updateTemplateBody,
} from './templates.schema.js';
import { previewTemplate, sendTemplateTest } from './templates.preview.js';
import * as svc from './templates.service.js';

/**
 * A create without `from` answers 400 with the plain `{error}` body. Checked before
 * schema validation so that this case never becomes a 422.
 */
async function requireFrom(req: FastifyRequest): Promise<void> {
  const b = req.body as Record<string, unknown> | undefined;
  if (
    b === undefined ||
    (b !== null &&
      typeof b === 'object' &&
      !Array.isArray(b) &&
      (b.from === undefined || b.from === null || b.from === ''))
  ) {
    throw simpleBadRequest('From address is required');
  }
}

/** Templates. Dashboard authentication. */
export async function templatesRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['templates'];

  r.post(
    '/templates',
    {
      preValidation: requireFrom,
      schema: {
        tags,
        summary: 'Create a template; its sender domain must be verified (403 otherwise, 400 without from)',
        body: createTemplateBody,
        response: replies({ 201: templateOutSchema, 400: simpleOrEnvelope }),
      },
    },
    async (req, reply) => {
      const out = await auditedCreate(deps, req, 'template', {
        change: (d) => svc.createTemplate(d, projectOf(req), req.body),
      });
      return reply.code(201).send(out);
    },
  );

  r.get(
    '/templates',
    {
      schema: {
        tags,
        summary: 'Templates, offset-paginated; filter by type, search name/description/subject',
        querystring: listTemplatesQuery,
        response: replies({ 200: templateListOut }),
      },
    },
    async (req) => svc.listTemplates(deps, projectOf(req), req.query),
  );

  r.get(
    '/templates/:id',
    {
      schema: { tags, summary: 'One template', params: idParams, response: replies({ 200: templateOutSchema }) },
    },
    async (req) => svc.toTemplateOut(await svc.getTemplate(deps, projectOf(req), req.params.id)),
  );

  r.patch(
    '/templates/:id',
    {
      schema: {
        tags,
        summary: 'Change some fields of a template; a new from must be on a verified domain',
        params: idParams,
        body: updateTemplateBody,
        response: replies({ 200: templateOutSchema }),
      },
    },
    async (req) =>
      auditedUpdate(deps, req, 'template', {
        load: async (d) => svc.toTemplateOut(await svc.getTemplate(d, projectOf(req), req.params.id)),
        change: (d) => svc.updateTemplate(d, projectOf(req), req.params.id, req.body),
      }),
  );

  r.delete(
    '/templates/:id',
    {
      schema: {
        tags,
        summary: 'Delete a template (409 while an enabled workflow sends it)',
        params: idParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getTemplate(d, projectOf(req), req.params.id);
        await svc.deleteTemplate(d, projectOf(req), req.params.id);
        await audit('template.delete', { type: 'template', id: before.id }, auditChanges({ name: before.name }, null));
      });
      return reply.code(204).send();
    },
  );

  r.post(
    '/templates/:id/duplicate',
    {
      schema: {
        tags,
        summary: 'Copy a template as "<name> (copy)"; answers the new template',
        params: idParams,
        response: replies({ 201: templateOutSchema }),
      },
    },
    async (req, reply) => {
      const out = await audited(deps, req, projectOf(req), async (d, audit) => {
        const t = await svc.duplicateTemplate(d, projectOf(req), req.params.id);
        await audit(
          'template.create',
          { type: 'template', id: t.id },
          { name: [null, t.name], copyOf: [null, req.params.id] },
        );
        return t;
      });
      return reply.code(201).send(out);
    },
  );

  r.get(
    '/templates/:id/usage',
    {
      schema: {
        tags,
        summary: 'Campaigns (always none: campaigns copy content) and workflow steps that use a template',
        params: idParams,
        response: replies({ 200: templateUsageOut }),
      },
    },
    async (req) => svc.templateUsage(deps, projectOf(req), req.params.id),
  );

  r.post(
    '/templates/preview',
    {
      schema: {
        tags,
        summary:
          'Render a subject and body as they would be sent, for a project contact (or one without data); 422 invalid_template with line and column',
        body: previewTemplateBody,
        response: replies({ 200: templatePreviewOut }),
      },
    },
    async (req) => previewTemplate(deps, projectOf(req), req.body),
  );

  r.post(
    '/templates/:id/test',
    {
      schema: {
        tags,
        summary:
          "Send one test of the template to `email` or the signed-in user ([TEST] subject, not counted), with the sample contact's data (or the user's own contact data); adds no contact; an API key must name `email`",
        params: idParams,
        body: templateTestBody,
        response: replies({ 200: templateTestOut }),
      },
    },
    async (req) =>
      sendTemplateTest(deps, projectOf(req), req.params.id, req.auth.userId, {
        contactId: req.body?.contactId,
        to: req.body?.email,
        locale: req.body?.locale,
      }),
  );
}
