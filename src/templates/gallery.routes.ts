import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { blocksDocument } from '../content/blocks.schema.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { replies } from '../http/responses.js';
import { galleryTemplate, galleryTemplates } from './gallery/index.js';
import { templateType } from './templates.schema.js';

/** One starter template: the fields a new template or campaign starts from, its document in full. */
const galleryTemplateOut = z
  .object({
    key: z.string().meta({ description: 'Stable identifier, e.g. `password-reset`' }),
    name: z.string(),
    description: z.string(),
    type: templateType.exclude(['HEADLESS']),
    subject: z.string(),
    preheader: z.string(),
    blocks: blocksDocument,
  })
  .meta({ id: 'GalleryTemplate', description: 'A starter template of the gallery, in the blocks format' });

const galleryListOut = z.object({ data: z.array(galleryTemplateOut) });
const galleryKeyParams = z.object({ key: z.string().max(100) });

/**
 * The starter gallery (issue 38): Pigeon's own templates in the `blocks` format, the same for every
 * project, which "Start from gallery" copies into a new template or campaign. Session or secret key
 * (the dashboard's default), like the other template routes. Fastify's router prefers the static
 * `/templates/gallery` to `/templates/:id`, so the order the two files register in does not matter.
 */
export async function galleryRoutes(app: FastifyInstance, _deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['templates'];

  r.get(
    '/templates/gallery',
    {
      schema: {
        tags,
        summary: 'The starter templates (welcome, receipt, newsletter, …) as blocks documents, to start from',
        response: replies({ 200: galleryListOut }),
      },
    },
    async () => ({ data: [...galleryTemplates()] }),
  );

  r.get(
    '/templates/gallery/:key',
    {
      schema: {
        tags,
        summary: 'One starter template by its key (404 for a key the gallery does not have)',
        params: galleryKeyParams,
        response: replies({ 200: galleryTemplateOut }),
      },
    },
    async (req) => {
      const t = galleryTemplate(req.params.key);
      if (!t) throw notFound('Gallery template');
      return t;
    },
  );
}
