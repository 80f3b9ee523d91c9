import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { BodyOf, ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';
import { useDebounced } from '../segments/api';

export type Campaign = ResponseOf<'/campaigns/{id}', 'get'>;
export type CampaignStatus = Campaign['status'];
export type CampaignBody = BodyOf<'/campaigns', 'post'>;
export type CampaignStats = ResponseOf<'/campaigns/{id}/stats', 'get'>;
export type CampaignEmail = ResponseOf<'/campaigns/{id}/emails', 'get'>['data'][number];
export type Timeline = ResponseOf<'/campaigns/{id}/timeline', 'get'>;
export type AudienceBody = BodyOf<'/campaigns/audience-count', 'post'>;
/** Where an A/B/n test stands (`experiment` of the stats; null for a plain campaign). */
export type ExperimentStats = NonNullable<CampaignStats['experiment']>;
/** One variant's test group in the stats. */
export type VariantStats = NonNullable<CampaignStats['variants']>[number];

export const STATUSES: CampaignStatus[] = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'];

/** What `GET /campaigns` is asked for. */
export interface ListParams {
  status: CampaignStatus | 'ALL';
  search: string;
  sort: 'createdAt' | 'updatedAt' | 'name';
  dir: 'asc' | 'desc';
  page: number;
}

/** Query keys of a project's campaigns; `all` refreshes lists, details and reports together. */
export const campaignKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'campaigns'] as const,
  list: (projectId: string, p: ListParams) => [...campaignKeys.all(projectId), 'list', p] as const,
  one: (projectId: string, id: string) => [...campaignKeys.all(projectId), 'one', id] as const,
  stats: (projectId: string, id: string) => [...campaignKeys.all(projectId), 'stats', id] as const,
  emails: (projectId: string, id: string, status: string, cursor: string) =>
    [...campaignKeys.all(projectId), 'emails', id, status, cursor] as const,
  timeline: (projectId: string, id: string) => [...campaignKeys.all(projectId), 'timeline', id] as const,
  audience: (projectId: string, key: string) => [...campaignKeys.all(projectId), 'audience', key] as const,
};

/** `GET /campaigns`: one page of 20, filtered by status and search, sorted. */
export function useCampaigns(projectId: string, p: ListParams) {
  return useQuery({
    queryKey: campaignKeys.list(projectId, p),
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/campaigns', {
          params: {
            query: {
              page: p.page,
              pageSize: 20,
              sort: p.sort,
              dir: p.dir,
              ...(p.status !== 'ALL' ? { status: p.status } : {}),
              ...(p.search.trim() ? { search: p.search.trim() } : {}),
            },
          },
          headers: inProject(projectId),
        }),
      ),
  });
}

/** `GET /campaigns/:id`, polled every 2 s while it is being sent so the progress moves without reload. */
export function useCampaign(projectId: string, id: string | undefined) {
  return useQuery({
    queryKey: campaignKeys.one(projectId, id ?? ''),
    enabled: Boolean(id),
    queryFn: () => unwrap(api.GET('/campaigns/{id}', { params: { path: { id: id! } }, headers: inProject(projectId) })),
    refetchInterval: (q) => (q.state.data?.status === 'SENDING' || q.state.data?.status === 'SCHEDULED' ? 2000 : false),
  });
}

/** `GET /campaigns/:id/stats`: counts and rates (polled while `live`). */
export function useCampaignStats(projectId: string, id: string, live: boolean) {
  return useQuery({
    queryKey: campaignKeys.stats(projectId, id),
    queryFn: () =>
      unwrap(api.GET('/campaigns/{id}/stats', { params: { path: { id } }, headers: inProject(projectId) })),
    refetchInterval: live ? 2000 : false,
  });
}

/** `GET /campaigns/:id/emails`: one cursor page (50) of recipients, optionally one status. */
export function useCampaignEmails(projectId: string, id: string, status: string, cursor: string) {
  return useQuery({
    queryKey: campaignKeys.emails(projectId, id, status, cursor),
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/campaigns/{id}/emails', {
          params: {
            path: { id },
            query: {
              limit: 50,
              ...(status ? { status: status as CampaignEmail['status'] } : {}),
              ...(cursor ? { cursor } : {}),
            },
          },
          headers: inProject(projectId),
        }),
      ),
  });
}

/** `GET /campaigns/:id/timeline`: activity per UTC hour. */
export function useCampaignTimeline(projectId: string, id: string) {
  return useQuery({
    queryKey: campaignKeys.timeline(projectId, id),
    queryFn: () =>
      unwrap(api.GET('/campaigns/{id}/timeline', { params: { path: { id } }, headers: inProject(projectId) })),
  });
}

/**
 * `POST /campaigns/audience-count`: eligible recipients of the audience if sent now, asked 400 ms
 * after the last change. A 422 is the query's error (its field errors name the wrong filter).
 */
export function useAudienceCount(projectId: string, body: AudienceBody | null) {
  const key = useDebounced(body ? JSON.stringify(body) : '', 400);
  return useQuery({
    queryKey: campaignKeys.audience(projectId, key),
    enabled: key !== '',
    retry: false,
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.POST('/campaigns/audience-count', { body: JSON.parse(key) as AudienceBody, headers: inProject(projectId) }),
      ),
  });
}

const h = (projectId: string) => ({ headers: inProject(projectId) });
const path = (id: string) => ({ params: { path: { id } } });

/** `POST /campaigns`: a new DRAFT (answers `{success, data}`). */
export const createCampaign = async (projectId: string, body: CampaignBody) =>
  (await unwrap(api.POST('/campaigns', { body, ...h(projectId) }))).data;

/** `PUT /campaigns/:id`: replaces a DRAFT or SCHEDULED campaign. */
export const replaceCampaign = (projectId: string, id: string, body: CampaignBody) =>
  unwrap(api.PUT('/campaigns/{id}', { ...path(id), body, ...h(projectId) }));

/** `POST /campaigns/:id/send`: now (no date) or scheduled for a UTC ISO date. */
export const sendCampaign = (projectId: string, id: string, scheduledFor?: string) =>
  unwrap(
    api.POST('/campaigns/{id}/send', { ...path(id), body: scheduledFor ? { scheduledFor } : {}, ...h(projectId) }),
  );

/** `POST /campaigns/:id/cancel`. */
export const cancelCampaign = (projectId: string, id: string) =>
  unwrap(api.POST('/campaigns/{id}/cancel', { ...path(id), ...h(projectId) }));

/**
 * `POST /campaigns/:id/test`: one "[TEST]" copy to `email`, of the A/B variant `variant` or the
 * translation `locale` when given.
 */
export const sendTestCampaign = (projectId: string, id: string, email: string, variant?: string, locale?: string) =>
  unwrap(api.POST('/campaigns/{id}/test', { ...path(id), body: { email, variant, locale }, ...h(projectId) }));

/** `DELETE /campaigns/:id`. */
export const deleteCampaign = (projectId: string, id: string) =>
  unwrap(api.DELETE('/campaigns/{id}', { ...path(id), ...h(projectId) }));

/** `POST /campaigns/:id/duplicate`: a DRAFT copy. */
export const duplicateCampaign = (projectId: string, id: string) =>
  unwrap(api.POST('/campaigns/{id}/duplicate', { ...path(id), ...h(projectId) }));

/**
 * `POST /campaigns/:id/winner`: picks the winning variant of a SENDING A/B test by hand (409 when it is
 * not sending, a pure split or already has a winner; 422 for a key it does not have).
 */
export const pickWinner = (projectId: string, id: string, key: string) =>
  unwrap(api.POST('/campaigns/{id}/winner', { ...path(id), body: { key }, ...h(projectId) }));
