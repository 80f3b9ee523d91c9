import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import { workflowKeys } from './api';
import { statsRange, type StatsDays } from './stepFigures';

/**
 * `GET /workflows/:id/stats?from&to` over the last `days` days, asked only while `enabled` (the graph's
 * "Show stats" switch); the previous figures stay drawn while another range loads.
 */
export function useWorkflowStats(projectId: string, id: string, days: StatsDays, enabled: boolean) {
  return useQuery({
    queryKey: [...workflowKeys.one(projectId, id), 'stats', days] as const,
    enabled,
    placeholderData: keepPreviousData,
    // The range ends now, when the query runs (a render must not read the clock).
    queryFn: () =>
      unwrap(
        api.GET('/workflows/{id}/stats', {
          params: { path: { id }, query: statsRange(days, Date.now()) },
          headers: inProject(projectId),
        }),
      ),
  });
}

/** `GET /workflows/:id/steps/:stepId/links`: clicks per tracked link of the mail a SEND_EMAIL step sent. */
export function useStepLinks(projectId: string, id: string, stepId: string) {
  return useQuery({
    queryKey: [...workflowKeys.one(projectId, id), 'links', stepId] as const,
    queryFn: () =>
      unwrap(
        api.GET('/workflows/{id}/steps/{stepId}/links', {
          params: { path: { id, stepId } },
          headers: inProject(projectId),
        }),
      ),
  });
}
