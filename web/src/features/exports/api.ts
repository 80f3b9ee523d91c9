import { useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import { apiErrorFrom, networkError } from '../../api/errors';
import type { BodyOf, ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

/** One export as `GET /exports/:id` answers it. */
export type DataExport = ResponseOf<'/exports/{id}', 'get'>;
export type NewExport = BodyOf<'/exports', 'post'>;
export type ExportKind = DataExport['kind'];
export type ExportFormat = DataExport['format'];
/** A project's data retention (`retention` of the project), days or null for "keep forever". */
export type Retention = ResponseOf<'/users/@me/projects', 'get'>[number]['retention'];

/** Query keys of the data-protection screens. */
export const exportKeys = {
  list: (projectId: string) => [...projectKeys.one(projectId), 'exports'] as const,
};

const busy = (e: DataExport) => e.state === 'queued' || e.state === 'running';

/** `GET /exports`: the latest 50, newest first; polled every 1.5 s while one is queued or running. */
export function useExports(projectId: string) {
  return useQuery({
    queryKey: exportKeys.list(projectId),
    queryFn: () => unwrap(api.GET('/exports', { headers: inProject(projectId) })),
    refetchInterval: (q) => (q.state.data?.data.some(busy) ? 1500 : false),
  });
}

/** `POST /exports`: queues an export (202). */
export const createExport = (projectId: string, body: NewExport) =>
  unwrap(api.POST('/exports', { body, headers: inProject(projectId) }));

/** `POST /contacts/:id/erase` with the address typed again. */
export const eraseContact = (projectId: string, id: string, confirm: string) =>
  unwrap(
    api.POST('/contacts/{id}/erase', { params: { path: { id } }, body: { confirm }, headers: inProject(projectId) }),
  );

/** `PATCH /users/@me/projects/:id` with `retention` (OWNER, ADMIN). */
export const saveRetention = (projectId: string, retention: Retention) =>
  unwrap(api.PATCH('/users/@me/projects/{id}', { params: { path: { id: projectId } }, body: { retention } }));

/**
 * `GET /contacts/:id/export` (subject access), saved by the browser as `contact-<email>.json`. The call
 * needs the `X-Project-Id` header, so it is fetched and handed to a download link.
 * @throws ApiError when the server refuses or cannot be reached.
 */
export async function downloadContactData(projectId: string, contactId: string, email: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`/contacts/${encodeURIComponent(contactId)}/export`, {
      headers: inProject(projectId),
      credentials: 'same-origin',
    });
  } catch (err) {
    throw networkError(err);
  }
  if (!res.ok) throw apiErrorFrom(res, await res.json().catch(() => undefined));
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = `contact-${email.replace(/[^\w.@-]+/g, '_')}.json`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
