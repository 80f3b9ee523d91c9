import { useInfiniteQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

type EntryOut = ResponseOf<'/projects/{id}/audit-log', 'get'>['entries'][number];
/** One entry; `changes` maps a field to `[before, after]` (the API's tuple, which its types widen to an array). */
export type AuditEntry = Omit<EntryOut, 'changes'> & { changes: Record<string, [unknown, unknown]> | null };

/** Filters of the audit log screen; empty strings are no filter. `from`/`to` are `YYYY-MM-DD` days. */
export interface AuditFilters {
  action: string;
  actor: string;
  from: string;
  to: string;
}

/** Entries per page. */
export const AUDIT_PAGE = 25;

/** A `YYYY-MM-DD` day (local time) as the ISO instant it starts at; `nextDay` the one after it ends. */
function dayStart(day: string, nextDay = false): string | undefined {
  if (!day) return undefined;
  const d = new Date(`${day}T00:00:00`);
  if (Number.isNaN(d.getTime())) return undefined;
  if (nextDay) d.setDate(d.getDate() + 1);
  return d.toISOString();
}

/** `GET /projects/:id/audit-log` (OWNER, ADMIN): newest first, page after page by cursor. */
export function useAuditLog(projectId: string, f: AuditFilters) {
  return useInfiniteQuery({
    queryKey: [...projectKeys.one(projectId), 'audit-log', f] as const,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/projects/{id}/audit-log', {
          params: {
            path: { id: projectId },
            query: {
              limit: AUDIT_PAGE,
              cursor: pageParam,
              action: f.action || undefined,
              actor: (f.actor || undefined) as never,
              from: dayStart(f.from),
              to: dayStart(f.to, true),
            },
          },
        }),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.cursor ?? undefined,
    select: (data) => ({ ...data, pages: data.pages.map((p) => ({ ...p, entries: p.entries as AuditEntry[] })) }),
    refetchOnMount: 'always',
  });
}
