import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditChanges } from '../audit/audit.js';
import { audited } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { noContent, replies } from '../http/responses.js';
import { projectIdParams } from '../projects/projects.schema.js';
import { acceptedOut, invitationOut, invitationParams, myInvitationParams } from './invitations.schema.js';
import * as svc from './invitations.service.js';
import { INVITATION_QUOTAS } from './invitations.service.js';

/**
 * Invitations to a project, for addresses without a verified account (`POST /projects/:id/members`
 * creates them): the project's side (list, resend, revoke: session of a member, OWNER or ADMIN to
 * change) and the invitee's (list, accept, decline: session whose verified address is the invited one).
 */
export async function invitationsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['projects'];

  r.get(
    '/projects/:id/invitations',
    {
      config: { auth: 'member' },
      schema: {
        tags,
        summary: 'Pending invitations of a project (status pending or expired)',
        params: projectIdParams,
        response: replies({ 200: z.array(invitationOut) }),
      },
    },
    async (req) => svc.listProjectInvitations(deps, req.params.id),
  );

  r.post(
    '/projects/:id/invitations/:invitationId/resend',
    {
      config: { auth: 'member', roles: ['OWNER', 'ADMIN'], quotas: INVITATION_QUOTAS },
      schema: {
        tags,
        summary: "Mail a pending invitation again and renew it for 7 days (the inviter's address must be confirmed)",
        params: invitationParams,
        response: replies({ 200: invitationOut }),
      },
    },
    async (req) =>
      audited(deps, req, req.params.id, async (d, audit) => {
        const before = (await svc.listProjectInvitations(d, req.params.id)).find(
          (i) => i.invitationId === req.params.invitationId,
        );
        const after = await svc.resendInvitation(d, req.params.id, req.params.invitationId, req.auth.userId!);
        await audit(
          'invitation.resend',
          { type: 'invitation', id: after.invitationId },
          auditChanges(before ?? null, after, ['email', 'status', 'expiresAt']),
        );
        return after;
      }),
  );

  r.delete(
    '/projects/:id/invitations/:invitationId',
    {
      config: { auth: 'member', roles: ['OWNER', 'ADMIN'] },
      schema: {
        tags,
        summary: 'Revoke a pending invitation',
        params: invitationParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, req.params.id, async (d, audit) => {
        const before = (await svc.listProjectInvitations(d, req.params.id)).find(
          (i) => i.invitationId === req.params.invitationId,
        );
        await svc.revokeInvitation(d, req.params.id, req.params.invitationId);
        await audit(
          'invitation.revoke',
          { type: 'invitation', id: req.params.invitationId },
          { email: [before?.email ?? null, null], status: [before?.status ?? null, 'revoked'] },
        );
      });
      return reply.code(204).send();
    },
  );

  r.get(
    '/users/@me/invitations',
    {
      config: { auth: 'session' },
      schema: {
        tags: ['users'],
        summary: 'Pending invitations addressed to the signed-in user (403 until the address is verified)',
        response: replies({ 200: z.array(invitationOut) }),
      },
    },
    async (req) => svc.listMyInvitations(deps, req.auth.userId!),
  );

  r.post(
    '/users/@me/invitations/:invitationId/accept',
    {
      config: { auth: 'session' },
      schema: {
        tags: ['users'],
        summary: 'Accept an invitation addressed to your verified email; you become a member',
        params: myInvitationParams,
        response: replies({ 200: acceptedOut }),
      },
    },
    async (req) =>
      audited(deps, req, null, async (d, audit) => {
        const m = await svc.acceptInvitation(d, req.auth.userId!, req.params.invitationId);
        const changes = { status: ['pending', 'accepted'], role: [null, m.role] } as Record<string, [unknown, unknown]>;
        await audit('invitation.accept', { type: 'invitation', id: req.params.invitationId }, changes, m.projectId);
        return m;
      }),
  );

  r.post(
    '/users/@me/invitations/:invitationId/decline',
    {
      config: { auth: 'session' },
      schema: {
        tags: ['users'],
        summary: 'Decline an invitation addressed to your verified email',
        params: myInvitationParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, null, async (d, audit) => {
        const projectId = await svc.declineInvitation(d, req.auth.userId!, req.params.invitationId);
        await audit(
          'invitation.decline',
          { type: 'invitation', id: req.params.invitationId },
          { status: ['pending', 'declined'] },
          projectId,
        );
      });
      return reply.code(204).send();
    },
  );
}
