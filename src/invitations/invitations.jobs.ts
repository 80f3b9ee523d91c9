import { isUuid } from '../lib/ids.js';
import type { TaskFactory } from '../worker/tasks.js';
import { INVITATION_MAIL_TASK, mailInvitation } from './invitations.service.js';

/** Background tasks of invitations: `invitations:mail {invitationId}` (invitations.service.ts). */
export const invitationsTasks: TaskFactory = (deps) => ({
  [INVITATION_MAIL_TASK]: async (payload, helpers) => {
    if (!isUuid(payload.invitationId)) {
      helpers.logger.error(`invitations:mail without a valid invitationId: ${JSON.stringify(payload)}`);
      return;
    }
    await mailInvitation(deps, payload.invitationId);
  },
});
