import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

export type EmailSummary = ResponseOf<'/emails', 'get'>['data'][number];
export type EmailDetail = ResponseOf<'/emails/{id}', 'get'>;
export type EmailStatus = EmailSummary['status'];
export type EmailSource = EmailSummary['source']['type'];

/** Rows per page of the email log. */
export const EMAILS_PAGE = 25;

/** The filters of the email log as the screen holds them; empty values mean "any". */
export interface EmailFilters {
  statuses: EmailStatus[];
  /** Part of the recipient address. */
  to: string;
  source: EmailSource | null;
  /** `YYYY-MM-DD` days, both included; '' for open ends. */
  since: string;
  until: string;
}

export const NO_FILTERS: EmailFilters = { statuses: [], to: '', source: null, since: '', until: '' };

export const emailKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'emails'] as const,
  one: (projectId: string, id: string) => [...projectKeys.one(projectId), 'emails', 'one', id] as const,
};

/**
 * The start of a `YYYY-MM-DD` day in the browser's zone, `after` days later, as the server's ISO
 * date-time: the days the person picks are their own, not UTC's.
 */
function startOfDay(day: string, after = 0): string {
  const d = new Date(`${day}T00:00:00`);
  d.setDate(d.getDate() + after);
  return d.toISOString();
}

/**
 * `GET /emails`: one page of the log, newest first, for the filters and the cursor of the page (none
 * for the first). The page on screen stays while the next one loads.
 */
export function useEmails(projectId: string, f: EmailFilters, cursor: string | undefined) {
  return useQuery({
    queryKey: [...emailKeys.all(projectId), 'list', f, cursor ?? null] as const,
    queryFn: () =>
      unwrap(
        api.GET('/emails', {
          params: {
            query: {
              limit: EMAILS_PAGE,
              cursor,
              status: f.statuses.length ? f.statuses.join(',') : undefined,
              to: f.to.trim() || undefined,
              source: f.source ?? undefined,
              since: f.since ? startOfDay(f.since) : undefined,
              // The "to" day is included: the window ends where the next day starts.
              until: f.until ? startOfDay(f.until, 1) : undefined,
            },
          },
          headers: inProject(projectId),
        }),
      ),
    placeholderData: keepPreviousData,
    // The log is about what just happened: a visit to the screen always asks again.
    refetchOnMount: 'always',
  });
}

/** `GET /emails/:id`: one email with its events and the message as rendered. */
export function useEmail(projectId: string, id: string) {
  return useQuery({
    queryKey: emailKeys.one(projectId, id),
    queryFn: () => unwrap(api.GET('/emails/{id}', { params: { path: { id } }, headers: inProject(projectId) })),
  });
}
