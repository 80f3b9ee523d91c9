import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

export type Interval = 'day' | 'hour';
export type Timeseries = ResponseOf<'/analytics/timeseries', 'get'>;
export type TopCampaign = ResponseOf<'/analytics/top-campaigns', 'get'>['data'][number];
export type TopEvent = ResponseOf<'/analytics/top-events', 'get'>['data'][number];
export type CampaignTotals = ResponseOf<'/analytics/campaign-stats', 'get'>;

const HOUR = 3_600_000;

/**
 * The range each interval shows: the last 30 days by day (the server's default range), the last 48
 * hours by hour. Rounded to the minute so that a re-render does not make a new query key.
 */
export function rangeFor(interval: Interval, now = Date.now()): { from: string; to: string } {
  const to = Math.ceil(now / 60_000) * 60_000;
  const from = to - (interval === 'hour' ? 48 * HOUR : 30 * 24 * HOUR);
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

const analyticsKey = (projectId: string, ...rest: unknown[]) =>
  [...projectKeys.one(projectId), 'analytics', ...rest] as const;

/** `GET /analytics/timeseries`: sent, delivered, opened, clicked, bounced and complained per UTC day or hour. */
export function useTimeseries(projectId: string, interval: Interval) {
  const range = rangeFor(interval);
  return useQuery({
    queryKey: analyticsKey(projectId, 'timeseries', interval, range.to),
    queryFn: () =>
      unwrap(
        api.GET('/analytics/timeseries', { params: { query: { interval, ...range } }, headers: inProject(projectId) }),
      ),
    placeholderData: keepPreviousData,
    // Counts move with every send: a visit to the screen always asks again.
    refetchOnMount: 'always',
  });
}

/** `GET /analytics/top-campaigns`: the 10 campaigns with most opens in the last 30 days. */
export function useTopCampaigns(projectId: string) {
  return useQuery({
    queryKey: analyticsKey(projectId, 'top-campaigns'),
    queryFn: () =>
      unwrap(
        api.GET('/analytics/top-campaigns', {
          params: { query: { limit: 10, sort: 'opens' } },
          headers: inProject(projectId),
        }),
      ),
    refetchOnMount: 'always',
  });
}

/** `GET /analytics/campaign-stats` over the last 30 days (the server's default range): campaign mail, raw and by people. */
export function useCampaignTotals(projectId: string) {
  return useQuery({
    queryKey: analyticsKey(projectId, 'campaign-stats'),
    queryFn: () => unwrap(api.GET('/analytics/campaign-stats', { headers: inProject(projectId) })),
    refetchOnMount: 'always',
  });
}

/** `GET /analytics/top-events`: the 10 event names tracked most in the last 30 days (the app's own events). */
export function useTopEvents(projectId: string) {
  return useQuery({
    queryKey: analyticsKey(projectId, 'top-events'),
    queryFn: () =>
      unwrap(api.GET('/analytics/top-events', { params: { query: { limit: 10 } }, headers: inProject(projectId) })),
    refetchOnMount: 'always',
  });
}

/** The overview's periods: the last 7 or 30 days. */
export type Days = 7 | 30;

/** `GET /analytics/timeseries` by day over the last `days` days, summed: the overview's mail figures. */
export function useEmailTotals(projectId: string, days: Days) {
  return useQuery({
    queryKey: analyticsKey(projectId, 'totals', days),
    queryFn: async () => {
      // The range ends now, when the query runs (a render must not read the clock).
      const to = Date.now();
      const from = new Date(to - days * 24 * HOUR).toISOString();
      const s = await unwrap(
        api.GET('/analytics/timeseries', {
          params: { query: { interval: 'day', from, to: new Date(to).toISOString() } },
          headers: inProject(projectId),
        }),
      );
      const sum = (k: 'sent' | 'delivered' | 'opened' | 'clicked' | 'bounced') => s.data.reduce((n, p) => n + p[k], 0);
      return { sent: sum('sent'), delivered: sum('delivered'), opened: sum('opened'), bounced: sum('bounced') };
    },
    placeholderData: keepPreviousData,
    refetchOnMount: 'always',
  });
}

/** `GET /contacts` (first page of one, for its `total`): how many contacts, and how many subscribed. */
export function useContactCounts(projectId: string) {
  return useQuery({
    queryKey: [...projectKeys.one(projectId), 'contacts', 'counts'] as const,
    queryFn: async () => {
      const count = async (subscribed?: 'true') =>
        (
          await unwrap(
            api.GET('/contacts', { params: { query: { limit: '1', subscribed } }, headers: inProject(projectId) }),
          )
        ).total;
      const [contacts, subscribed] = await Promise.all([count(), count('true')]);
      return { contacts, subscribed };
    },
    refetchOnMount: 'always',
  });
}
