import { z } from 'zod';
import { defineJob } from '../worker/jobs.js';

/**
 * `invitations:mail {invitationId}` (invitations.service.ts): mails a pending invitation. The service
 * queues it, so `run` loads the service when the job runs (worker/jobs.ts).
 */
export const invitationMailJob = defineJob({
  name: 'invitations:mail',
  payload: z.object({ invitationId: z.guid() }),
  maxAttempts: 5,
  run: async (deps, { invitationId }) => {
    const { mailInvitation } = await import('./invitations.service.js');
    await mailInvitation(deps, invitationId);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const invitationsJobs = [invitationMailJob];
