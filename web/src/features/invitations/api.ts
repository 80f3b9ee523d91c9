import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { projectKeys } from '../projects/api';
import { pendingInvitation } from './pendingInvitation';

/** Query key of the signed-in user's pending invitations. */
export const myInvitationsKey = ['me', 'invitations'] as const;

/**
 * `GET /users/@me/invitations`: invitations addressed to the signed-in user's address (a 403 until the
 * address is confirmed, so no retry).
 */
export function useMyInvitations() {
  return useQuery({
    queryKey: myInvitationsKey,
    queryFn: () => unwrap(api.GET('/users/@me/invitations')),
    retry: false,
  });
}

/** `POST /users/@me/invitations/:id/accept`: answers the new membership (`projectId`, `role`). */
export function useAcceptInvitation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (invitationId: string) =>
      unwrap(api.POST('/users/@me/invitations/{invitationId}/accept', { params: { path: { invitationId } } })),
    onSuccess: async () => {
      pendingInvitation.clear();
      await qc.invalidateQueries({ queryKey: projectKeys.all });
      void qc.invalidateQueries({ queryKey: myInvitationsKey });
    },
  });
}

/** `POST /users/@me/invitations/:id/decline`. */
export function useDeclineInvitation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (invitationId: string) =>
      unwrap(api.POST('/users/@me/invitations/{invitationId}/decline', { params: { path: { invitationId } } })),
    onSuccess: () => {
      pendingInvitation.clear();
      void qc.invalidateQueries({ queryKey: myInvitationsKey });
    },
  });
}
