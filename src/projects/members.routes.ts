import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { audited } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { noContent, replies } from '../http/responses.js';
import { invitationOut } from '../invitations/invitations.schema.js';
import { INVITATION_QUOTAS } from '../invitations/invitations.service.js';
import { addMemberBody, memberOut, memberParams, projectIdParams, updateMemberBody } from './projects.schema.js';
import * as svc from './projects.service.js';

/**
 * A project's members: list, add (or invite), change a role, remove or leave. Session only, roles
 * checked before the body is read (auth.ts), like the project's own routes (projects.routes.ts).
 */
export async function membersRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['projects'];
  const member = { auth: 'member' as const };
  const admins = { auth: 'member' as const, roles: ['OWNER' as const, 'ADMIN' as const] };

  r.get(
    '/projects/:id/members',
    {
      config: member,
      schema: {
        tags,
        summary: 'Members of a project',
        params: projectIdParams,
        response: replies({ 200: z.array(memberOut) }),
      },
    },
    async (req) => svc.listMembers(deps, req.params.id),
  );

  r.post(
    '/projects/:id/members',
    {
      // Most additions mail an invitation: they draw on the invitation quotas.
      config: { ...admins, quotas: INVITATION_QUOTAS },
      schema: {
        tags,
        summary:
          'Add a member: a user whose address is verified joins at once (201); any other address gets a pending invitation by mail, to accept once verified (202)',
        params: projectIdParams,
        body: addMemberBody,
        response: replies({ 201: memberOut, 202: invitationOut }),
      },
    },
    async (req, reply) => {
      const added = await audited(deps, req, req.params.id, async (d, audit) => {
        const a = await svc.addMember(d, req.params.id, req.body.email, req.body.role, req.auth.userId!);
        const changes = { email: [null, req.body.email], role: [null, req.body.role] } as Record<
          string,
          [unknown, unknown]
        >;
        if ('invitation' in a)
          await audit('invitation.create', { type: 'invitation', id: a.invitation.invitationId }, changes);
        else await audit('member.add', { type: 'member', id: a.member.userId }, changes);
        return a;
      });
      return 'invitation' in added ? reply.code(202).send(added.invitation) : reply.code(201).send(added.member);
    },
  );

  r.patch(
    '/projects/:id/members/:userId',
    {
      config: admins,
      schema: {
        tags,
        summary: "Change a member's role",
        params: memberParams,
        body: updateMemberBody,
        response: replies({ 200: memberOut }),
      },
    },
    async (req) =>
      audited(deps, req, req.params.id, async (d, audit) => {
        const before = (await svc.listMembers(d, req.params.id)).find((m) => m.userId === req.params.userId);
        const after = await svc.updateMember(d, req.params.id, req.params.userId, req.body.role, req.auth.role!);
        const changes = { email: [after.email, after.email], role: [before?.role ?? null, after.role] } as Record<
          string,
          [unknown, unknown]
        >;
        await audit('member.update', { type: 'member', id: after.userId }, changes);
        return after;
      }),
  );

  r.delete(
    '/projects/:id/members/:userId',
    {
      // A member turned away by the project's two-factor requirement may still leave it.
      config: { ...member, selfWithoutTwoFactor: true },
      schema: {
        tags,
        summary: 'Remove a member (or leave the project)',
        params: memberParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, req.params.id, async (d, audit) => {
        const before = (await svc.listMembers(d, req.params.id)).find((m) => m.userId === req.params.userId);
        await svc.removeMember(d, req.params.id, req.params.userId, req.auth.role!, req.auth.userId);
        const changes = { email: [before?.email ?? null, null], role: [before?.role ?? null, null] } as Record<
          string,
          [unknown, unknown]
        >;
        await audit('member.remove', { type: 'member', id: req.params.userId }, changes);
      });
      return reply.code(204).send();
    },
  );
}
