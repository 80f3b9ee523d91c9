import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { projects } from '../db/schema.js';
import { auditChanges } from '../audit/audit.js';
import { audited } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { replies } from '../http/responses.js';
import { blocksStyle, type BlocksStyle } from './blocks.schema.js';

/** The defaults of every field: a project that never saved a style has these. */
const DEFAULT_STYLE: BlocksStyle = blocksStyle.parse({});

/**
 * The project's email style (issue 38): the brand colour, colours, font, width and logo that new
 * visual-editor documents start from. Dashboard authentication, like templates. Documents copy the
 * style when made, so changing it never changes a saved template or a sent campaign.
 */
export async function emailStyleRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['templates'];

  r.get(
    '/email-style',
    {
      schema: {
        tags,
        summary: "The project's email style new visual-editor documents start from (the defaults until saved)",
        response: replies({ 200: blocksStyle }),
      },
    },
    async (req) => {
      const [row] = await deps.db
        .select({ style: projects.emailStyle })
        .from(projects)
        .where(eq(projects.id, projectOf(req)));
      return { ...DEFAULT_STYLE, ...row?.style };
    },
  );

  r.put(
    '/email-style',
    {
      schema: {
        tags,
        summary: "Replace the project's email style (missing fields take their defaults)",
        body: blocksStyle,
        response: replies({ 200: blocksStyle }),
      },
    },
    async (req) =>
      audited(deps, req, projectOf(req), async (d, audit) => {
        const [row] = await d.db
          .select({ style: projects.emailStyle })
          .from(projects)
          .where(eq(projects.id, projectOf(req)));
        await d.db
          .update(projects)
          .set({ emailStyle: req.body })
          .where(eq(projects.id, projectOf(req)));
        const before = { ...DEFAULT_STYLE, ...row?.style };
        await audit('email_style.update', { type: 'project', id: projectOf(req) }, auditChanges(before, req.body));
        return req.body;
      }),
  );
}
