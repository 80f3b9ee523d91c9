import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { sessions } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { noContent, replies } from '../http/responses.js';
import { idParams, sessionOut } from './sign-in/factors.schema.js';
import { liveSessionCondition, revokeSession } from './sessions.js';
import { describeDevice } from './user-agent.js';

/** `GET /users/@me/sessions` and `DELETE /users/@me/sessions/:id`: the account's live sessions. */
export async function sessionsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['users'];

  r.get(
    '/users/@me/sessions',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        summary: "The account's live sessions, most recently used first; `current` marks this one",
        response: replies({ 200: z.array(sessionOut) }),
      },
    },
    async (req) => {
      const rows = await deps.db
        .select()
        .from(sessions)
        .where(and(eq(sessions.userId, req.auth.userId!), liveSessionCondition(deps, deps.clock.now())))
        .orderBy(desc(sessions.lastSeenAt), desc(sessions.createdAt))
        .limit(200);
      return rows.map((s) => ({
        id: s.id,
        current: s.id === req.auth.sessionId,
        createdAt: s.createdAt.toISOString(),
        lastSeenAt: s.lastSeenAt.toISOString(),
        device: describeDevice(s.userAgent),
        ip: s.ip,
        method: s.method,
      }));
    },
  );

  r.delete(
    '/users/@me/sessions/:id',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        summary: 'Sign one session out (this one too, when named); 404 for a session of another account',
        params: idParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      const now = deps.clock.now();
      const [live] = await deps.db
        .select({ id: sessions.id })
        .from(sessions)
        .where(
          and(eq(sessions.id, req.params.id), eq(sessions.userId, req.auth.userId!), liveSessionCondition(deps, now)),
        );
      if (!live) throw notFound('Session');
      await revokeSession(deps.db, req.auth.userId!, req.params.id, now);
      return reply.code(204).send();
    },
  );
}
