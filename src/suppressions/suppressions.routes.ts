import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { addressRef } from '../audit/audit.js';
import { audited } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { AppError, invalid } from '../http/errors.js';
import { multipartReadError } from '../http/multipart.js';
import { noContent, replies } from '../http/responses.js';
import { SUPPRESSION_IMPORT_MAX_BYTES } from './import.js';
import {
  addSuppressionsBody,
  addSuppressionsOut,
  emailParams,
  exportSuppressionsQuery,
  importSuppressionsOut,
  listSuppressionsQuery,
  suppressionReason,
  suppressionListOut,
} from './suppressions.schema.js';
import * as svc from './suppressions.service.js';

const tooLarge = () =>
  new AppError('PAYLOAD_TOO_LARGE', 'The CSV file is larger than 5 MB', {
    suggestion: 'Split the file into parts of at most 5 MB.',
  });

/** The project's suppression list. Dashboard auth (secret key, or session with X-Project-Id). */
export async function suppressionsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['suppressions'];
  // Multipart only in this scope, for the import (one CSV file and the optional `reason` field).
  await app.register(multipart, {
    limits: { fileSize: SUPPRESSION_IMPORT_MAX_BYTES, files: 1, fields: 2, parts: 3 },
  });

  r.get(
    '/suppressions',
    {
      schema: {
        tags,
        summary:
          'Suppressed addresses, newest first (cursor, limit 1..100, reason: bounce | complaint | manual | unsubscribe, search: part of the address)',
        querystring: listSuppressionsQuery,
        response: replies({ 200: suppressionListOut }),
      },
    },
    async (req) => svc.listSuppressions(deps, projectOf(req), req.query),
  );

  r.get(
    '/suppressions/export',
    {
      schema: {
        tags,
        summary: 'Every suppression matching reason and search as CSV (email,reason,createdAt), newest first, streamed',
        querystring: exportSuppressionsQuery,
        response: replies({
          200: { description: 'RFC 4180 CSV with a header row', content: { 'text/csv': { schema: z.string() } } },
        }),
      },
    },
    async (req, reply) =>
      reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', 'attachment; filename="suppressions.csv"')
        .header('Cache-Control', 'no-store')
        // A stream is sent as it is (Fastify serializes no stream); the type provider knows only the schema's string.
        .send(Readable.from(svc.exportCsv(deps, projectOf(req), req.query)) as unknown as string),
  );

  r.post(
    '/suppressions/import',
    {
      schema: {
        tags,
        summary:
          'Suppress the addresses of a CSV file (multipart field "file", <= 5 MB; optional field "reason", default manual); bad rows are listed, not added',
        consumes: ['multipart/form-data'],
        response: replies({ 200: importSuppressionsOut }),
      },
    },
    async (req) => {
      const projectId = projectOf(req);
      if (!req.isMultipart())
        throw new AppError('BAD_REQUEST', 'Send the CSV as multipart/form-data in the field "file"');
      let reasonField: unknown;
      let file: Buffer | undefined;
      try {
        for await (const part of req.parts()) {
          if (part.type === 'field' && part.fieldname === 'reason') reasonField = part.value;
          else if (part.type === 'file' && part.fieldname === 'file') {
            const buf = await part.toBuffer();
            // toBuffer() misses the limit when it is crossed in the last chunk: check the stream's flag too.
            if (part.file.truncated || buf.length > SUPPRESSION_IMPORT_MAX_BYTES) throw tooLarge();
            file = buf;
          } else if (part.type === 'file') await part.toBuffer();
        }
      } catch (err) {
        const e = err as { code?: string };
        throw e?.code === 'FST_REQ_FILE_TOO_LARGE' ? tooLarge() : multipartReadError(err);
      }
      if (!file) throw invalid('file', 'A CSV file in the multipart field "file" is required', 'invalid_type');
      const reason = suppressionReason.default('manual').safeParse(reasonField || undefined);
      if (!reason.success)
        throw invalid('reason', 'reason must be one of bounce, complaint, manual, unsubscribe', 'invalid_value');
      const csv = file;
      return audited(deps, req, projectId, async (d, audit) => {
        const out = await svc.importSuppressions(d, projectId, csv, reason.data);
        await audit(
          'suppression.import',
          { type: 'suppression', id: null },
          { added: [null, out.added], reason: [null, reason.data] },
        );
        return out;
      });
    },
  );

  r.post(
    '/suppressions',
    {
      schema: {
        tags,
        summary:
          'Suppress up to 1,000 addresses (reason defaults to manual); addresses already suppressed keep their reason',
        body: addSuppressionsBody,
        response: replies({ 200: addSuppressionsOut }),
      },
    },
    async (req) =>
      audited(deps, req, projectOf(req), async (d, audit) => {
        const out = await svc.addSuppressions(d, projectOf(req), req.body.emails, req.body.reason);
        const one = new Set(req.body.emails.map((e) => e.trim().toLowerCase())).size === 1;
        const id = one ? addressRef(deps.secret, req.body.emails[0]) : null;
        await audit(
          'suppression.add',
          { type: 'suppression', id },
          { added: [null, out.added], reason: [null, req.body.reason] },
        );
        return out;
      }),
  );

  r.delete(
    '/suppressions/:email',
    {
      schema: {
        tags,
        summary: 'Remove an address from the suppression list (404 when it is not on it)',
        params: emailParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, projectOf(req), async (d, audit) => {
        await svc.removeSuppression(d, projectOf(req), req.params.email);
        await audit('suppression.remove', { type: 'suppression', id: addressRef(deps.secret, req.params.email) });
      });
      return reply.code(204).send();
    },
  );
}
