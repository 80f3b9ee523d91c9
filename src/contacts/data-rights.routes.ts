import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../audit/audit.js';
import type { Deps } from '../deps.js';
import { exportStorage } from '../exports/storage.js';
import { projectOf } from '../http/auth.js';
import { isoDateTime, jsonObject, replies } from '../http/responses.js';
import { idParams } from './contacts.schema.js';
import { eraseContact } from './erase.js';
import { subjectAccess } from './subject-access.js';

const rows = z.array(jsonObject);

/** `GET /contacts/:id/export`: the subject access document (contacts/subject-access.ts). */
const subjectAccessOut = z.object({
  exportedAt: isoDateTime,
  contact: jsonObject,
  topics: rows,
  segments: rows,
  consent: rows,
  suppression: jsonObject.nullable(),
  formSignups: rows,
  events: rows,
  emails: rows,
  truncated: z.object({ events: z.boolean(), emails: z.boolean() }),
});

/** `POST /contacts/:id/erase` body: the contact's address, typed again. */
const eraseBody = z.strictObject({
  confirm: z.string().max(320).describe("The contact's email address, to confirm (any case)"),
});

const eraseOut = z.object({
  erased: z.literal(true),
  emails: z.number().int(),
  events: z.number().int(),
  suppressions: z.number().int(),
  webhookDeliveries: z.number().int(),
  exportFiles: z.number().int(),
});

/**
 * A contact's data rights (docs/data-protection.md): subject access (`GET /contacts/:id/export`) and
 * erasure (`POST /contacts/:id/erase`). Dashboard auth.
 */
export async function dataRightsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['contacts'];
  const storage = exportStorage(deps.config);
  app.addHook('onClose', async () => storage.close());

  r.get(
    '/contacts/:id/export',
    {
      schema: {
        tags,
        summary: 'Everything Pigeon holds about a contact, as one JSON document (subject access request)',
        params: idParams,
        response: replies({ 200: subjectAccessOut }),
      },
    },
    async (req, reply) => {
      const doc = await subjectAccess(deps, projectOf(req), req.params.id);
      return reply
        .header('content-disposition', `attachment; filename="contact-${req.params.id}.json"`)
        .header('cache-control', 'private, no-store')
        .send(doc as z.infer<typeof subjectAccessOut>);
    },
  );

  r.post(
    '/contacts/:id/erase',
    {
      schema: {
        tags,
        summary: "Erase a contact and every trace of its address, irreversibly; `confirm` is the contact's address",
        params: idParams,
        body: eraseBody,
        response: replies({ 200: eraseOut }),
      },
    },
    async (req) => {
      const { result, exportKeys } = await eraseContact(
        deps,
        projectOf(req),
        req.params.id,
        req.body.confirm,
        actorOf(req),
      );
      // After the commit: the files' rows no longer point at them, so a failure here only leaves an orphan.
      for (const key of exportKeys) await storage.remove(key);
      return result;
    },
  );
}
