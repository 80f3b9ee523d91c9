import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { cursorPage, isoDateTime, replies, uuidOut } from '../http/responses.js';
import { limitParam } from '../events/events.schema.js';
import type { ConsentAction, ConsentSource } from './consent.js';
import { listConsent } from './consent.read.js';

const ACTIONS = [
  'subscribed',
  'unsubscribed',
  'joined',
  'left',
  'confirmed',
  'snoozed',
] as const satisfies readonly ConsentAction[];
const SOURCES = [
  'api',
  'track',
  'import',
  'form',
  'preference-centre',
  'one-click',
  'complaint',
  'bounce',
  'dashboard',
  'workflow',
] as const satisfies readonly ConsentSource[];

/** One entry of the consent log (consent/consent.ts says what each change records). */
export const consentEntryOut = z.object({
  id: uuidOut,
  action: z.enum(ACTIONS),
  topicId: uuidOut.nullable().describe('The topic joined or left; null for the master switch'),
  source: z.enum(SOURCES).describe('Where the change was asked for'),
  formId: uuidOut.nullable(),
  ip: z.string().nullable().describe('Client address of a public request (one-click, form, preference centre)'),
  userAgent: z.string().nullable(),
  createdAt: isoDateTime,
});

const consentQuery = z.object({ limit: limitParam, cursor: z.string().max(500).optional() });

/** The consent log's reading. Dashboard auth (secret key, or session with X-Project-Id), as `GET /contacts/:id`. */
export async function consentRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/contacts/:id/consent',
    {
      schema: {
        tags: ['contacts'],
        summary:
          "A contact's consent log newest first, cursor-paged: each change of its subscription or topics, with its source",
        params: z.object({ id: z.string() }),
        querystring: consentQuery,
        response: replies({ 200: cursorPage(consentEntryOut) }),
      },
    },
    async (req) => listConsent(deps, projectOf(req), req.params.id, req.query),
  );
}
