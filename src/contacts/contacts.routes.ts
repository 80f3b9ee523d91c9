import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { AppError, invalid } from '../http/errors.js';
import { multipartReadError } from '../http/multipart.js';
import type { BulkKind } from './bulk.js';
import { jobIdOut, noContent, replies, simpleOrEnvelope } from '../http/responses.js';
import {
  bulkBody,
  contactDetailOut,
  contactListOut,
  contactOutSchema,
  contactsCsvDescription,
  exportContactsQuery,
  importMapping,
  type ImportMapping,
  createContactBody,
  createdContactOut,
  fieldParams,
  fieldsOut,
  fieldUsageOut,
  fieldValuesOut,
  idParams,
  jobParams,
  jobStatusOut,
  listContactsQuery,
  lookupBody,
  lookupOut,
  patchContactBody,
} from './contacts.schema.js';
import * as svc from './contacts.service.js';
import { exportCsv } from './export.js';
import * as fields from './fields.service.js';
import { IMPORT_MAX_BYTES, jobStatus, queueBulk, queueImport } from './jobs.service.js';
import { callerOrigin } from '../consent/origin.js';

/** Contacts: CRUD, lookup, fields, import and bulk actions. Dashboard auth throughout. */
export async function contactsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  // Multipart only in this scope, capped at the import limit (CSV file <= 5 MB).
  await app.register(multipart, { limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 20, parts: 21 } });
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['contacts'];

  r.get(
    '/contacts',
    {
      schema: {
        tags,
        summary: 'Cursor-paginated contacts (limit 1..100, search, subscribed, sort createdAt|email, dir)',
        querystring: listContactsQuery,
        response: replies({ 200: contactListOut }),
      },
    },
    async (req) => svc.listContacts(deps, projectOf(req), req.query),
  );

  r.get(
    '/contacts/export',
    {
      schema: {
        tags,
        summary: 'The contacts matching the list filters (search, subscribed) as a CSV file, streamed',
        querystring: exportContactsQuery,
        // The CSV type on the 200 alone: errors keep the JSON envelope (a `produces` would relabel them).
        response: replies({
          200: { description: contactsCsvDescription, content: { 'text/csv': { schema: z.string() } } },
        }),
      },
    },
    async (req, reply) => {
      const stream = await exportCsv(deps.db, projectOf(req), {
        search: req.query.search?.trim() || undefined,
        subscribed: req.query.subscribed === undefined ? undefined : req.query.subscribed === 'true',
      });
      const day = deps.clock.now().toISOString().slice(0, 10);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="contacts-${day}.csv"`)
        .header('cache-control', 'no-store')
        .send(stream as unknown as string); // streamed as is: Fastify does not serialize a stream
    },
  );

  r.post(
    '/contacts',
    {
      schema: {
        tags,
        summary: 'Create or upsert a contact by email (201 created, 200 updated)',
        body: createContactBody.nullish(),
        response: replies({ 200: createdContactOut, 201: createdContactOut, 400: simpleOrEnvelope }),
      },
    },
    async (req, reply) => {
      const { contact, isNew } = await svc.createContact(deps, projectOf(req), req.body ?? {}, callerOrigin(req));
      return reply.code(isNew ? 201 : 200).send(contact);
    },
  );

  r.post(
    '/contacts/lookup',
    {
      schema: {
        tags,
        summary: 'Which of up to 500 emails are contacts: [{email, exists, id}] in request order',
        body: lookupBody,
        response: replies({ 200: lookupOut }),
      },
    },
    async (req) => svc.lookup(deps, projectOf(req), req.body.emails),
  );

  r.get(
    '/contacts/fields',
    {
      schema: {
        tags,
        summary: 'Standard and custom fields with inferred types and coverage (percent of contacts)',
        response: replies({ 200: fieldsOut }),
      },
    },
    async (req) => fields.listFields(deps, projectOf(req)),
  );

  r.get(
    '/contacts/fields/:field/values',
    {
      schema: {
        tags,
        summary: 'Up to 100 distinct values of a custom field with their counts',
        params: fieldParams,
        response: replies({ 200: fieldValuesOut }),
      },
    },
    async (req) => fields.fieldValues(deps, projectOf(req), req.params.field),
  );

  r.get(
    '/contacts/fields/:field/usage',
    {
      schema: {
        tags,
        summary: 'Segments, campaigns, templates and workflows that reference a custom field',
        params: fieldParams,
        response: replies({ 200: fieldUsageOut }),
      },
    },
    async (req) => fields.fieldUsage(deps, projectOf(req), req.params.field),
  );

  r.delete(
    '/contacts/fields/:field',
    {
      schema: {
        tags,
        summary: 'Remove a custom field from every contact of the project',
        params: fieldParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await fields.deleteField(deps, projectOf(req), req.params.field);
      return reply.code(204).send();
    },
  );

  r.post(
    '/contacts/import',
    {
      schema: {
        tags,
        summary:
          'Queue a CSV import (multipart field "file", <= 5 MB; optional field "mapping", JSON ' +
          '{column: "email"|"subscribed"|"data:<key>"|"topics"|"topic:<topicId>"|"skip"}); answers 202 {jobId}',
        consumes: ['multipart/form-data'],
        response: replies({ 202: jobIdOut }),
      },
    },
    async (req, reply) => {
      const projectId = projectOf(req);
      if (!req.isMultipart()) {
        throw new AppError('BAD_REQUEST', 'Send the CSV as multipart/form-data in the field "file"');
      }
      let mapping: ImportMapping | undefined;
      let file: { buf: Buffer; filename: string } | undefined;
      try {
        for await (const part of req.parts()) {
          if (part.type === 'field') {
            if (part.fieldname === 'mapping') mapping = parseMapping(part.value);
            continue;
          }
          if (part.fieldname !== 'file' || file) {
            await part.toBuffer();
            continue;
          }
          const buf = await part.toBuffer();
          // toBuffer() misses the limit when it is crossed in the last chunk: check the stream's flag too.
          if (part.file.truncated || buf.length > IMPORT_MAX_BYTES) {
            throw new AppError('PAYLOAD_TOO_LARGE', 'The CSV file is larger than 5 MB', {
              suggestion: 'Split the file into parts of at most 5 MB.',
            });
          }
          file = { buf, filename: part.filename };
        }
      } catch (err) {
        throw multipartReadError(err);
      }
      if (!file) throw invalid('file', 'A CSV file in the multipart field "file" is required', 'invalid_type');
      const jobId = await queueImport(deps, projectId, file.buf, file.filename, mapping);
      return reply.code(202).send({ jobId });
    },
  );

  r.get(
    '/contacts/import/:jobId',
    {
      schema: {
        tags,
        summary: 'Import job status {id, state, progress, result, failedReason}',
        params: jobParams,
        response: replies({ 200: jobStatusOut }),
      },
    },
    async (req) => jobStatus(deps, projectOf(req), req.params.jobId, 'import'),
  );

  const bulk = (path: string, kind: BulkKind, summary: string) =>
    r.post(
      path,
      {
        schema: { tags, summary, body: bulkBody, response: replies({ 202: jobIdOut }) },
      },
      async (req, reply) =>
        reply
          .code(202)
          .send({ jobId: await queueBulk(deps, projectOf(req), kind, req.body.contactIds, callerOrigin(req).source) }),
    );
  bulk('/contacts/bulk-subscribe', 'bulk-subscribe', 'Queue subscribing up to 1,000 contacts; answers 202 {jobId}');
  bulk(
    '/contacts/bulk-unsubscribe',
    'bulk-unsubscribe',
    'Queue unsubscribing up to 1,000 contacts; answers 202 {jobId}',
  );
  bulk('/contacts/bulk-delete', 'bulk-delete', 'Queue deleting up to 1,000 contacts; answers 202 {jobId}');

  r.get(
    '/contacts/bulk/:jobId',
    {
      schema: {
        tags,
        summary: 'Bulk job status {id, state, progress, result, failedReason}',
        params: jobParams,
        response: replies({ 200: jobStatusOut }),
      },
    },
    async (req) => jobStatus(deps, projectOf(req), req.params.jobId, 'bulk'),
  );

  r.get(
    '/contacts/:id',
    {
      schema: {
        tags,
        summary: 'One contact, with the suppression of its address (null when not suppressed)',
        params: idParams,
        response: replies({ 200: contactDetailOut }),
      },
    },
    async (req) => svc.getContact(deps, projectOf(req), req.params.id),
  );

  r.patch(
    '/contacts/:id',
    {
      schema: {
        tags,
        summary: 'Update email, subscription (emits contact.subscribed/unsubscribed) or data',
        params: idParams,
        body: patchContactBody.nullish(),
        response: replies({ 200: contactOutSchema }),
      },
    },
    async (req) => svc.patchContact(deps, projectOf(req), req.params.id, req.body ?? {}, callerOrigin(req)),
  );

  r.delete(
    '/contacts/:id',
    {
      schema: {
        tags,
        summary: 'Delete a contact permanently',
        params: idParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await svc.deleteContact(deps, projectOf(req), req.params.id);
      return reply.code(204).send();
    },
  );
}

/** The `mapping` field of an import: JSON of {@link importMapping}. @throws 422 naming the field. */
function parseMapping(text: string | unknown): ImportMapping {
  let json: unknown;
  try {
    json = JSON.parse(String(text));
  } catch {
    throw invalid(
      'mapping',
      'The mapping must be JSON: {"CSV column": "email" | "subscribed" | "data:<key>" | "topics" | "topic:<topicId>" | "skip"}',
    );
  }
  const r = importMapping.safeParse(json);
  if (!r.success) {
    throw invalid('mapping', `The mapping is not valid: ${r.error.issues[0]?.message ?? 'unknown shape'}`);
  }
  if (Object.values(r.data).filter((v) => v === 'email').length > 1)
    throw invalid('mapping', 'Only one column can be the email');
  return r.data;
}
