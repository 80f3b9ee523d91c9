import { z } from 'zod';

export const invitationParams = z.object({
  id: z.uuid({ message: 'Invalid project id' }),
  invitationId: z.uuid({ message: 'Invalid invitation id' }),
});
export const myInvitationParams = z.object({ invitationId: z.uuid({ message: 'Invalid invitation id' }) });

/**
 * An invitation to join a project, as every invitation endpoint answers it (202 of
 * `POST /projects/:id/members` for an address without a verified account). `status` is `expired` for a
 * pending invitation past `expiresAt` (resend renews it).
 */
export const invitationOut = z.object({
  invitationId: z.string(),
  projectId: z.string(),
  projectName: z.string(),
  email: z.string(),
  role: z.enum(['ADMIN', 'MEMBER']),
  status: z.enum(['pending', 'expired', 'accepted', 'revoked', 'declined']),
  /** E-mail of the member who invited, null when that account is gone. */
  invitedBy: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type InvitationOut = z.infer<typeof invitationOut>;

/** 200 of `POST /users/@me/invitations/:invitationId/accept`: the new membership. */
export const acceptedOut = z.object({
  projectId: z.string(),
  userId: z.string(),
  email: z.string(),
  role: z.enum(['OWNER', 'ADMIN', 'MEMBER']),
  createdAt: z.string(),
});
