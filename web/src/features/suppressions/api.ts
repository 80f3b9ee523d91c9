import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import { apiErrorFrom, networkError } from '../../api/errors';
import type { ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

export type Suppression = ResponseOf<'/suppressions', 'get'>['data'][number];
export type SuppressionReason = Suppression['reason'];
export type ImportResult = ResponseOf<'/suppressions/import', 'post'>;

/** Rows per page of the list. */
export const SUPPRESSIONS_PAGE = 25;

/** The filters of the list (and of its export); '' / null mean "any". */
export interface SuppressionFilters {
  search: string;
  reason: SuppressionReason | null;
}

export const suppressionKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'suppressions'] as const,
};

/** `GET /suppressions`: one page, newest first, for the filters and the page's cursor. */
export function useSuppressions(projectId: string, f: SuppressionFilters, cursor: string | undefined) {
  return useQuery({
    queryKey: [...suppressionKeys.all(projectId), f, cursor ?? null] as const,
    queryFn: () =>
      unwrap(
        api.GET('/suppressions', {
          params: {
            query: { limit: SUPPRESSIONS_PAGE, cursor, search: f.search || undefined, reason: f.reason ?? undefined },
          },
          headers: inProject(projectId),
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** `POST /suppressions` with one address. */
export const addSuppression = (projectId: string, email: string, reason: SuppressionReason) =>
  unwrap(api.POST('/suppressions', { body: { emails: [email], reason }, headers: inProject(projectId) }));

/** `DELETE /suppressions/:email`. */
export const removeSuppression = (projectId: string, email: string) =>
  unwrap(api.DELETE('/suppressions/{email}', { params: { path: { email } }, headers: inProject(projectId) }));

/** `POST /suppressions/import` (multipart: `file`, and `reason` for rows without one). */
export function importSuppressions(projectId: string, file: File, reason: SuppressionReason) {
  const form = new FormData();
  form.append('reason', reason);
  form.append('file', file, file.name);
  // The route takes multipart, which the generated types cannot describe: the form goes as it is.
  return unwrap(
    api.POST('/suppressions/import', {
      body: form as never,
      bodySerializer: (b: unknown) => b as FormData,
      headers: inProject(projectId),
    }),
  );
}

/**
 * `GET /suppressions/export` for the filters, saved by the browser as `suppressions-<day>.csv`. The
 * call needs the `X-Project-Id` header, so it is fetched and handed to a download link.
 * @throws ApiError when the server refuses or cannot be reached.
 */
export async function downloadExport(projectId: string, f: SuppressionFilters): Promise<void> {
  const q = new URLSearchParams();
  if (f.search) q.set('search', f.search);
  if (f.reason) q.set('reason', f.reason);
  let res: Response;
  try {
    res = await fetch(`/suppressions/export?${q}`, { headers: inProject(projectId), credentials: 'same-origin' });
  } catch (err) {
    throw networkError(err);
  }
  if (!res.ok) throw apiErrorFrom(res, await res.json().catch(() => undefined));
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = `suppressions-${new Date().toISOString().slice(0, 10)}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
