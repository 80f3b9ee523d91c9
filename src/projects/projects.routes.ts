import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { eq } from 'drizzle-orm';
import { auditChanges } from '../audit/audit.js';
import { projects } from '../db/schema.js';
import { audited } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { keyCacheFor } from '../http/key-cache.js';
import { noContent, replies, successOut } from '../http/responses.js';
import {
  createdProjectOut,
  createProjectBody,
  keysOut,
  projectIdParams,
  projectListItem,
  projectOut,
  regeneratedKeyOut,
  regenerateKeyBody,
  securityOut,
  setupStateOut,
  updateProjectBody,
} from './projects.schema.js';
import * as svc from './projects.service.js';
import { AppError } from '../http/errors.js';
import { sessionMethod } from '../users/sessions.js';

/**
 * Projects and their keys, behind dashboard authentication (members: members.routes.ts).
 */
export async function projectsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['projects'];
  // Session only, and roles checked before the body is read (auth.ts): a leaked secret key must not
  // manage members or keys, and a MEMBER must not learn an admin route's schema from a 422.
  const admins = { auth: 'member' as const, roles: ['OWNER' as const, 'ADMIN' as const] };
  const owner = { auth: 'member' as const, roles: ['OWNER' as const] };

  r.get(
    '/users/@me/projects',
    {
      config: { auth: 'session' },
      schema: { tags, summary: 'Projects of the signed-in user', response: replies({ 200: z.array(projectListItem) }) },
    },
    async (req) => svc.listProjects(deps, req.auth.userId!),
  );

  r.post(
    '/users/@me/projects',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        summary: 'Create a project; answers its keys, shown only here and on regenerate-keys',
        body: createProjectBody,
        response: replies({ 201: createdProjectOut }),
      },
    },
    async (req, reply) => {
      // A new project's first entry; its keys are in the answer, never in the entry.
      const out = await audited(deps, req, null, async (d, audit) => {
        const created = await svc.createProject(d, req.auth.userId!, req.body.name);
        const changes = { name: [null, req.body.name] } as Record<string, [unknown, unknown]>;
        await audit('project.create', { type: 'project', id: created.id }, changes, created.id);
        return created;
      });
      return reply.code(201).send(out);
    },
  );

  // Both paths: the first is Plunk's dashboard API, the second the project-scoped family (members, keys,
  // audit log) where the security settings (`require2fa`, `retention`) are looked for.
  for (const path of ['/users/@me/projects/:id', '/projects/:id'])
    r.patch(
      path,
      {
        config: admins,
        schema: {
          tags,
          summary:
            'Rename a project, set its tracking mode, brand colour, time zone or data retention, or require two-factor sign-in of its members',
          params: projectIdParams,
          body: updateProjectBody,
          response: replies({ 200: projectOut }),
        },
      },
      async (req) => {
        // Whoever turns the requirement on must meet it, or they would lock themselves out at once.
        if (req.body.require2fa && (await sessionMethod(deps.db, req.auth.sessionId!)) === 'password')
          throw new AppError(
            'TWO_FACTOR_REQUIRED',
            'Set up two-factor sign-in for your own account and sign in with it before requiring it of members.',
          );
        return audited(deps, req, req.params.id, async (d, audit) => {
          const [before] = await d.db.select().from(projects).where(eq(projects.id, req.params.id));
          const after = await svc.updateProject(d, req.params.id, req.body);
          await audit(
            'project.update',
            { type: 'project', id: after.id },
            auditChanges(before, after, Object.keys(req.body)),
          );
          return after;
        });
      },
    );

  r.delete(
    '/users/@me/projects/:id',
    {
      config: owner,
      schema: {
        tags,
        summary: 'Delete a project and all its data (OWNER)',
        params: projectIdParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await svc.deleteProject(deps, req.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/users/@me/projects/:id/regenerate-keys',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Rotate both keys; the old ones stop working at once',
        params: projectIdParams,
        response: replies({ 200: keysOut }),
      },
    },
    async (req) => {
      const out = await audited(deps, req, req.params.id, async (d, audit) => {
        const keys = await svc.regenerateKeys(d, req.params.id);
        const rotated: [string, string] = ['[secret]', '[secret]'];
        await audit(
          'project.regenerate_keys',
          { type: 'project', id: req.params.id },
          { publicKey: rotated, secretKey: rotated },
        );
        return keys;
      });
      // The service emptied this process's key cache inside the transaction: once more now it has
      // committed, so that no look-up made in between keeps the old key.
      keyCacheFor(deps.pool).invalidate();
      return out;
    },
  );

  r.post(
    '/users/@me/projects/:id/regenerate-key',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Rotate one key (public or secret); the old one stops working at once, the other key keeps working',
        params: projectIdParams,
        body: regenerateKeyBody,
        response: replies({ 200: regeneratedKeyOut }),
      },
    },
    async (req) => {
      const rotated = await audited(deps, req, req.params.id, async (d, audit) => {
        const out = await svc.regenerateKey(d, req.params.id, req.body.key);
        const field = req.body.key === 'public' ? 'publicKey' : 'secretKey';
        await audit(
          'project.regenerate_key',
          { type: 'project', id: req.params.id },
          { [field]: ['[secret]', '[secret]'] },
        );
        return out;
      });
      keyCacheFor(deps.pool).invalidate(); // as for both keys, above
      return rotated;
    },
  );

  r.post(
    '/users/@me/projects/:id/reset',
    {
      config: owner,
      schema: {
        tags,
        summary:
          'Irreversibly delete the project data (contacts, events, emails, templates, campaigns, segments, workflows); keeps members, keys and domains (OWNER)',
        params: projectIdParams,
        response: replies({ 200: successOut }),
      },
    },
    async (req) => {
      await audited(deps, req, req.params.id, async (d, audit) => {
        await svc.resetProject(d, req.params.id);
        await audit('project.reset', { type: 'project', id: req.params.id });
      });
      return { success: true as const };
    },
  );

  // `/users/@me*` takes the session only; the `/projects/:id` overviews also take the project's secret
  // key: they are read-only and show nothing the key cannot already read (masked keys, counts).
  for (const [path, auth] of [
    ['/users/@me/projects/:id/security', 'member'],
    ['/projects/:id/security', 'member-or-key'],
  ] as const) {
    r.get(
      path,
      {
        config: { auth },
        schema: {
          tags,
          summary:
            'Key, access and sender-health overview (bounce and complaint rates of the last 7 and 30 days) of a project',
          params: projectIdParams,
          response: replies({ 200: securityOut }),
        },
      },
      async (req) => svc.security(deps, req.params.id),
    );
  }

  for (const path of ['/users/@me/projects/:id/security/acknowledge', '/projects/:id/security/acknowledge']) {
    r.post(
      path,
      {
        config: admins,
        schema: {
          tags,
          summary:
            'Acknowledge a critical bounce or complaint rate: resumes paused campaign and marketing mail (OWNER, ADMIN); 409 when not paused',
          params: projectIdParams,
          response: replies({ 200: securityOut }),
        },
      },
      async (req) =>
        audited(deps, req, req.params.id, async (d, audit) => {
          const out = await svc.acknowledgeHealth(d, req.params.id, req.auth.userId);
          await audit('project.acknowledge_health', { type: 'project', id: req.params.id });
          return out;
        }),
    );
  }

  r.get(
    '/projects/:id/setup-state',
    {
      config: { auth: 'member-or-key' },
      schema: {
        tags,
        summary: 'Which onboarding steps the project has done',
        params: projectIdParams,
        response: replies({ 200: setupStateOut }),
      },
    },
    async (req) => svc.setupState(deps, req.params.id),
  );
}
