import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { audited, auditedCreate, auditedUpdate } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { noContent, replies } from '../http/responses.js';
import { createFormBody, formOut, updateFormBody } from './forms.schema.js';
import * as svc from './forms.service.js';

// Path ids are plain strings: a malformed id is 404 like an unknown one.
const idParams = z.object({ id: z.string() });

/**
 * Hosted sign-up forms (`/forms`). Dashboard authentication (secret key, or session +
 * `X-Project-Id`); changing a form needs OWNER or ADMIN (the secret key counts as ADMIN), reading it
 * any member. The public side (`/f/:id`, `/confirm/:token`) is public.routes.ts.
 */
export async function formsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['forms'];
  // Changing a form needs OWNER or ADMIN (the secret key counts as ADMIN, http/auth.ts).
  const admins = { roles: ['OWNER' as const, 'ADMIN' as const] };

  r.post(
    '/forms',
    {
      config: admins,
      schema: {
        tags,
        summary:
          'Add a sign-up form: its fields (one is the email), the topics it joins, double opt-in (needs a verified sender)',
        body: createFormBody,
        response: replies({ 201: formOut }),
      },
    },
    async (req, reply) => {
      const out = await auditedCreate(deps, req, 'form', {
        change: (d) => svc.createForm(d, projectOf(req), req.body),
      });
      return reply.code(201).send(out);
    },
  );

  r.get(
    '/forms',
    {
      schema: {
        tags,
        summary: 'Forms of the project, newest first, with submission and confirmation counts',
        response: replies({ 200: z.array(formOut) }),
      },
    },
    async (req) => svc.listForms(deps, projectOf(req)),
  );

  r.get(
    '/forms/:id',
    {
      schema: {
        tags,
        summary: 'One form, with its hosted page and embed snippet',
        params: idParams,
        response: replies({ 200: formOut }),
      },
    },
    async (req) => svc.getForm(deps, projectOf(req), req.params.id),
  );

  r.patch(
    '/forms/:id',
    {
      config: admins,
      schema: {
        tags,
        summary: "Change a form's fields, topics, double opt-in, sender, redirect or messages",
        params: idParams,
        body: updateFormBody,
        response: replies({ 200: formOut }),
      },
    },
    async (req) =>
      auditedUpdate(deps, req, 'form', {
        load: (d) => svc.getForm(d, projectOf(req), req.params.id),
        change: (d) => svc.updateForm(d, projectOf(req), req.params.id, req.body),
      }),
  );

  r.delete(
    '/forms/:id',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Delete a form and its pending sign-ups (contacts and the consent log stay)',
        params: idParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getForm(d, projectOf(req), req.params.id);
        await svc.deleteForm(d, projectOf(req), req.params.id);
        await audit('form.delete', { type: 'form', id: before.id }, { name: [before.name, null] });
      });
      return reply.code(204).send();
    },
  );
}
