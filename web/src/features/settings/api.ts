import { useQuery } from '@tanstack/react-query';
import { api, unwrap, unwrapAs } from '../../api/client';
import type { BillingConsumption, BillingLimits, Invitation, Member, Role } from '../../api/types';
import { projectKeys } from '../projects/api';

/** Query keys of the settings screens. */
export const settingsKeys = {
  members: (id: string) => [...projectKeys.one(id), 'members'] as const,
  invitations: (id: string) => [...projectKeys.one(id), 'invitations'] as const,
  limits: (id: string) => [...projectKeys.one(id), 'billing-limits'] as const,
  consumption: (id: string) => [...projectKeys.one(id), 'billing-consumption'] as const,
};

/** `GET /projects/:id/members`. */
export function useMembers(id: string) {
  return useQuery({
    queryKey: settingsKeys.members(id),
    queryFn: () => unwrap(api.GET('/projects/{id}/members', { params: { path: { id } } })),
  });
}

/**
 * `POST /projects/:id/members` (OWNER, ADMIN): a user whose address is verified joins at once (the
 * member); any other address gets a pending invitation by mail (the invitation, with `invitationId`).
 */
export const addMember = (id: string, body: { email: string; role: 'ADMIN' | 'MEMBER' }) =>
  unwrap(api.POST('/projects/{id}/members', { params: { path: { id } }, body }));

/** `GET /projects/:id/invitations`: invitations not yet answered (status pending or expired). */
export function useInvitations(id: string) {
  return useQuery({
    queryKey: settingsKeys.invitations(id),
    queryFn: () => unwrap(api.GET('/projects/{id}/invitations', { params: { path: { id } } })),
  });
}

/** `POST /projects/:id/invitations/:invitationId/resend` (OWNER, ADMIN): mails it again, valid 7 more days. */
export const resendInvitation = (id: string, invitationId: string): Promise<Invitation> =>
  unwrap(api.POST('/projects/{id}/invitations/{invitationId}/resend', { params: { path: { id, invitationId } } }));

/** `DELETE /projects/:id/invitations/:invitationId` (OWNER, ADMIN): the link stops working at once. */
export const revokeInvitation = (id: string, invitationId: string) =>
  unwrap(api.DELETE('/projects/{id}/invitations/{invitationId}', { params: { path: { id, invitationId } } }));

/** `PATCH /projects/:id/members/:userId` (OWNER, ADMIN; only an OWNER grants or takes OWNER). */
export const changeRole = (id: string, userId: string, role: Role): Promise<Member> =>
  unwrap(api.PATCH('/projects/{id}/members/{userId}', { params: { path: { id, userId } }, body: { role } }));

/** `DELETE /projects/:id/members/:userId`: removes a member, or leaves the project when it is oneself. */
export const removeMember = (id: string, userId: string) =>
  unwrap(api.DELETE('/projects/{id}/members/{userId}', { params: { path: { id, userId } } }));

/** `GET /users/@me/projects/:id/billing-limits`: monthly caps per source (null: no cap). */
export function useBillingLimits(id: string) {
  return useQuery({
    queryKey: settingsKeys.limits(id),
    queryFn: () => unwrap(api.GET('/users/@me/projects/{id}/billing-limits', { params: { path: { id } } })),
  });
}

/** `PUT /users/@me/projects/:id/billing-limits` (OWNER). */
export const setBillingLimits = (id: string, body: BillingLimits) =>
  unwrap(api.PUT('/users/@me/projects/{id}/billing-limits', { params: { path: { id } }, body }));

/** `GET /users/@me/projects/:id/billing-consumption`: emails this month per source. */
export function useBillingConsumption(id: string) {
  return useQuery({
    queryKey: settingsKeys.consumption(id),
    queryFn: () =>
      unwrapAs<BillingConsumption>(
        api.GET('/users/@me/projects/{id}/billing-consumption', { params: { path: { id } } }),
      ),
  });
}
