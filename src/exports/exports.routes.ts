import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../audit/audit.js';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { AppError, notFound } from '../http/errors.js';
import { replies } from '../http/responses.js';
import { isUuid } from '../lib/ids.js';
import * as repo from './exports.repo.js';
import { createExportBody, downloadQuery, exportListOut, exportOut, exportParams } from './exports.schema.js';
import { createExport, getExportView, listExportViews } from './exports.service.js';
import { EXPORT_TYPES } from './file.js';
import { exportStorage } from './storage.js';
import { checkDownloadToken } from './token.js';

/**
 * Data exports (docs/data-protection.md): `POST/GET /exports`, `GET /exports/:id` (dashboard auth: the
 * secret key or a member's session) and `GET /exports/:id/download?token=` (no other auth: the signed,
 * expiring token of the export's `url` is the permission, so the link works in a plain browser tab).
 */
export async function exportsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['exports'];
  const storage = exportStorage(deps.config);
  app.addHook('onClose', async () => storage.close());

  r.post(
    '/exports',
    {
      schema: {
        tags,
        summary: 'Start an export of contacts, events, emails, suppressions or consent entries (CSV or JSON Lines)',
        body: createExportBody,
        response: replies({ 202: exportOut }),
      },
    },
    async (req, reply) => reply.code(202).send(await createExport(deps, projectOf(req), req.body, actorOf(req))),
  );

  r.get(
    '/exports',
    {
      schema: {
        tags,
        summary: "The project's latest 50 exports, newest first",
        response: replies({ 200: exportListOut }),
      },
    },
    async (req) => listExportViews(deps, projectOf(req)),
  );

  r.get(
    '/exports/:id',
    {
      schema: {
        tags,
        summary: 'An export: state, progress, and once done a signed download link valid 24 hours',
        params: exportParams,
        response: replies({ 200: exportOut }),
      },
    },
    async (req) => getExportView(deps, projectOf(req), req.params.id),
  );

  r.get(
    '/exports/:id/download',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: "An export's file, streamed; `token` is the one of the export's signed `url`",
        params: exportParams,
        querystring: downloadQuery,
        response: replies({
          200: {
            description: 'The file (CSV or JSON Lines)',
            content: { 'text/csv': { schema: z.string() }, 'application/x-ndjson': { schema: z.string() } },
          },
        }),
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const token = req.query.token ?? '';
      if (!isUuid(id) || !checkDownloadToken(deps.secret, id, token, deps.clock.now())) {
        throw new AppError(
          'FORBIDDEN',
          'This download link is not valid or has expired; open the export again for a new one.',
        );
      }
      const e = await repo.getExport(deps.db, null, id);
      if (!e?.storageKey || e.state !== 'done') throw notFound('Export file');
      const file = await storage.get(e.storageKey);
      if (!file) throw notFound('Export file');
      const day = e.createdAt.toISOString().slice(0, 10);
      return reply
        .type(EXPORT_TYPES[e.format])
        .header('content-disposition', `attachment; filename="pigeon-${e.kind}-${day}.${e.format}"`)
        .header('cache-control', 'private, no-store')
        .send(file.stream as unknown as string); // streamed as is: Fastify does not serialize a stream
    },
  );
}
