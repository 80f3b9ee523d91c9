import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { requireRole } from '../http/auth.js';
import {
  addMemberBody, createdProjectOut, createProjectBody, keysOut, memberOut, memberParams, projectIdParams,
  projectListItem, securityOut, setupStateOut, updateMemberBody, updateProjectBody,
} from './projects.schema.js';
import * as svc from './projects.service.js';

/**
 * Projects, keys and members (api.md §4.3 user and project management; decisions.md: projects and
 * keys, dashboard authentication).
 */
export async function projectsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['projects'];
  const member = { auth: 'member' as const };

  r.get('/users/@me/projects', {
    config: { auth: 'session' },
    schema: { tags, summary: 'Projects of the signed-in user', response: { 200: z.array(projectListItem) } },
  }, async (req) => svc.listProjects(deps, req.auth.userId!));

  r.post('/users/@me/projects', {
    config: { auth: 'session' },
    schema: { tags, summary: 'Create a project; answers its keys, shown only here and on regenerate-keys', body: createProjectBody, response: { 201: createdProjectOut } },
  }, async (req, reply) => reply.code(201).send(await svc.createProject(deps, req.auth.userId!, req.body.name)));

  r.patch('/users/@me/projects/:id', {
    config: member,
    schema: { tags, summary: 'Rename a project or set its tracking mode', params: projectIdParams, body: updateProjectBody },
  }, async (req) => {
    requireRole(req, 'OWNER', 'ADMIN');
    return svc.updateProject(deps, req.params.id, req.body);
  });

  r.delete('/users/@me/projects/:id', {
    config: member,
    schema: { tags, summary: 'Delete a project and all its data (OWNER)', params: projectIdParams },
  }, async (req, reply) => {
    requireRole(req, 'OWNER');
    await svc.deleteProject(deps, req.params.id);
    return reply.code(204).send();
  });

  r.post('/users/@me/projects/:id/regenerate-keys', {
    config: member,
    schema: { tags, summary: 'Rotate both keys; the old ones stop working at once', params: projectIdParams, response: { 200: keysOut } },
  }, async (req) => {
    requireRole(req, 'OWNER', 'ADMIN');
    return svc.regenerateKeys(deps, req.params.id);
  });

  r.post('/users/@me/projects/:id/reset', {
    config: member,
    schema: { tags, summary: 'Irreversibly delete the project data (contacts, events, emails, templates, campaigns, segments, workflows); keeps members, keys and domains (OWNER)', params: projectIdParams },
  }, async (req) => {
    requireRole(req, 'OWNER');
    await svc.resetProject(deps, req.params.id);
    return { success: true as const };
  });

  for (const path of ['/users/@me/projects/:id/security', '/projects/:id/security']) {
    r.get(path, {
      config: member,
      schema: { tags, summary: 'Key and access overview of a project', params: projectIdParams, response: { 200: securityOut } },
    }, async (req) => svc.security(deps, req.params.id));
  }

  r.get('/projects/:id/setup-state', {
    config: member,
    schema: { tags, summary: 'Which onboarding steps the project has done', params: projectIdParams, response: { 200: setupStateOut } },
  }, async (req) => svc.setupState(deps, req.params.id));

  r.get('/projects/:id/members', {
    config: member,
    schema: { tags, summary: 'Members of a project', params: projectIdParams, response: { 200: z.array(memberOut) } },
  }, async (req) => svc.listMembers(deps, req.params.id));

  r.post('/projects/:id/members', {
    config: member,
    schema: { tags, summary: 'Add an existing user as ADMIN or MEMBER', params: projectIdParams, body: addMemberBody, response: { 201: memberOut } },
  }, async (req, reply) => {
    requireRole(req, 'OWNER', 'ADMIN');
    return reply.code(201).send(await svc.addMember(deps, req.params.id, req.body.email, req.body.role));
  });

  r.patch('/projects/:id/members/:userId', {
    config: member,
    schema: { tags, summary: "Change a member's role", params: memberParams, body: updateMemberBody, response: { 200: memberOut } },
  }, async (req) => {
    requireRole(req, 'OWNER', 'ADMIN');
    return svc.updateMember(deps, req.params.id, req.params.userId, req.body.role, req.auth.role!);
  });

  r.delete('/projects/:id/members/:userId', {
    config: member,
    schema: { tags, summary: 'Remove a member (or leave the project)', params: memberParams },
  }, async (req, reply) => {
    await svc.removeMember(deps, req.params.id, req.params.userId, req.auth.role!, req.auth.userId);
    return reply.code(204).send();
  });
}
