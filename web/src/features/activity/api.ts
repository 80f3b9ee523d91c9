import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

export type ActivityItem = ResponseOf<'/activity', 'get'>['data'][number];
export type ActivityType = ActivityItem['type'];

/** Items per page of the feed. */
export const ACTIVITY_PAGE = 25;

/** `GET /activity/types`: the item types the feed can be filtered by. */
export function useActivityTypes(projectId: string) {
  return useQuery({
    queryKey: [...projectKeys.one(projectId), 'activity-types'] as const,
    queryFn: () => unwrap(api.GET('/activity/types', { headers: inProject(projectId) })),
    staleTime: Infinity,
  });
}

/** `GET /activity`: the feed newest first, page after page by cursor; `types` empty means all. */
export function useActivityFeed(projectId: string, types: ActivityType[]) {
  return useInfiniteQuery({
    queryKey: [...projectKeys.one(projectId), 'activity', types] as const,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/activity', {
          params: {
            query: { limit: ACTIVITY_PAGE, cursor: pageParam, type: types.length ? types.join(',') : undefined },
          },
          headers: inProject(projectId),
        }),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.hasMore && last.cursor ? last.cursor : undefined),
    // The feed is about what just happened: a visit to the screen always asks again.
    refetchOnMount: 'always',
  });
}
