import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { AppError, invalid } from '../http/errors.js';
import { multipartReadError } from '../http/multipart.js';
import { replies, uuidOut } from '../http/responses.js';
import { storageFromConfig } from './storage.js';
import { MAX_IMAGE_BYTES, openImage, storeImage } from './uploads.service.js';

const uploadOut = z.object({
  id: uuidOut,
  url: z.string().meta({ format: 'uri', description: 'Public URL of the image, for template bodies' }),
  contentType: z.string().meta({ description: 'image/png, image/jpeg, image/gif or image/webp, by content' }),
  size: z.number().int().meta({ description: 'Bytes' }),
});

/** The stored bytes, answered with the image's own content type. */
const imageOut = {
  description: 'The image',
  content: Object.fromEntries(
    ['image/png', 'image/jpeg', 'image/gif', 'image/webp'].map((type) => [
      type,
      { schema: z.unknown().meta({ type: 'string', format: 'binary' }) },
    ]),
  ),
};

/**
 * Image uploads: kept under DATA_DIR, or
 * in the S3-compatible bucket `S3_BUCKET` when that is set.
 */
export async function uploadsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const storage = storageFromConfig(deps.config);
  app.addHook('onClose', async () => storage.close());
  // Scoped to this plugin: other routes keep refusing multipart bodies.
  await app.register(multipart, { limits: { fileSize: MAX_IMAGE_BYTES, files: 1, fields: 10, parts: 11 } });
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['uploads'];

  r.post(
    '/uploads/image',
    {
      schema: {
        tags,
        summary:
          'Upload an image (multipart field "file"; PNG, JPEG, GIF or WebP by content; at most 5 MB); answers its public URL',
        consumes: ['multipart/form-data'],
        response: replies({ 201: uploadOut }),
      },
    },
    async (req, reply) => {
      const projectId = projectOf(req);
      if (!req.isMultipart())
        throw new AppError('BAD_REQUEST', 'Send the image as multipart/form-data in the field "file"');
      const part = await req.file().catch((err: unknown) => {
        throw multipartReadError(err);
      });
      if (!part) throw invalid('file', 'The multipart field "file" is required', 'invalid_type', 'undefined');
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw invalid('file', 'Send the image in the multipart field "file"', 'invalid_type');
      }
      // The rest of an oversized upload is left unread: close the connection rather than drain it.
      const tooLarge = () =>
        new AppError('PAYLOAD_TOO_LARGE', `Images may be at most ${MAX_IMAGE_BYTES / 1024 / 1024} MB`, {
          headers: { Connection: 'close' },
        });
      let bytes: Buffer;
      try {
        bytes = await part.toBuffer();
      } catch (err) {
        if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
        throw multipartReadError(err);
      }
      // busboy may flag the truncation only after the last chunk, which toBuffer() then misses.
      if (part.file.truncated || bytes.length > MAX_IMAGE_BYTES) throw tooLarge();
      if (bytes.length === 0) throw invalid('file', 'The file is empty', 'too_small');
      return reply.code(201).send(await storeImage(deps, storage, projectId, bytes));
    },
  );

  r.get(
    '/uploads/:projectId/:file',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'A stored image (public)',
        params: z.object({ projectId: z.string(), file: z.string() }),
        response: replies({ 200: imageOut }),
      },
    },
    async (req, reply) => {
      const img = await openImage(deps, storage, req.params.projectId, req.params.file);
      return (
        reply
          .type(img.contentType)
          // Never let a browser reinterpret the bytes (e.g. as HTML) or run anything in their context.
          .header('X-Content-Type-Options', 'nosniff')
          .header('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'")
          .header('Cache-Control', 'public, max-age=31536000, immutable')
          .send(img.stream)
      );
    },
  );
}
