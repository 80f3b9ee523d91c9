import { keepPreviousData, useQuery, type QueryClient } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

export type Contact = ResponseOf<'/contacts/{id}', 'get'>;
export type ContactPage = ResponseOf<'/contacts', 'get'>;
/** A contact as the list gives it (no suppression look-up per row). */
export type ContactRow = ContactPage['data'][number];
export type ContactJob = ResponseOf<'/contacts/bulk/{jobId}', 'get'>;
export type ContactField = ResponseOf<'/contacts/fields', 'get'>[number];
export type ContactEvent = ResponseOf<'/events/contact/{contactId}', 'get'>['data'][number];
export type ConsentEntry = ResponseOf<'/contacts/{id}/consent', 'get'>['data'][number];
export type BulkAction = 'subscribe' | 'unsubscribe' | 'delete';

/** What `GET /contacts` is asked for: filters, order and the cursor of the page (none: the first). */
export interface ListParams {
  search: string;
  subscribed: 'all' | 'true' | 'false';
  sort: 'createdAt' | 'email';
  dir: 'asc' | 'desc';
  cursor?: string;
  limit: number;
}

/** Query keys of a project's contacts; `all` refreshes lists, fields and details together. */
export const contactKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'contacts'] as const,
  list: (projectId: string, p: ListParams) => [...contactKeys.all(projectId), 'list', p] as const,
  one: (projectId: string, id: string) => [...contactKeys.all(projectId), 'one', id] as const,
  events: (projectId: string, id: string) => [...contactKeys.all(projectId), 'events', id] as const,
  consent: (projectId: string, id: string, cursor?: string) =>
    [...contactKeys.all(projectId), 'consent', id, cursor ?? null] as const,
  fields: (projectId: string) => [...contactKeys.all(projectId), 'fields'] as const,
  job: (projectId: string, family: 'import' | 'bulk', jobId: string) =>
    [...projectKeys.one(projectId), 'job', family, jobId] as const,
};

/** Rows per page of the contact list. */
export const PAGE_SIZE = 50;

/** What the list asks for when it opens: newest first, no filter. */
export const FIRST_PAGE: ListParams = {
  search: '',
  subscribed: 'all',
  sort: 'createdAt',
  dir: 'desc',
  limit: PAGE_SIZE,
};

const listQuery = (projectId: string, p: ListParams) => ({
  queryKey: contactKeys.list(projectId, p),
  queryFn: () =>
    unwrap(
      api.GET('/contacts', {
        params: {
          query: {
            limit: String(p.limit),
            sort: p.sort,
            dir: p.dir,
            ...(p.search.trim() ? { search: p.search.trim() } : {}),
            ...(p.subscribed !== 'all' ? { subscribed: p.subscribed } : {}),
            ...(p.cursor ? { cursor: p.cursor } : {}),
          },
        },
        headers: inProject(projectId),
      }),
    ),
});

/**
 * `GET /contacts`: one keyset page `{data, cursor, hasMore, total}` (`total` only on the first page).
 * The previous page stays on screen while the next one loads, so the table does not flash.
 */
export function useContacts(projectId: string, p: ListParams) {
  return useQuery({ ...listQuery(projectId, p), placeholderData: keepPreviousData });
}

/**
 * Starts loading the list's first page ({@link FIRST_PAGE}) into the cache, so the request runs while
 * the screen's code is still loading rather than after it rendered.
 */
export function prefetchFirstContacts(qc: QueryClient, projectId: string): void {
  void qc.prefetchQuery(listQuery(projectId, FIRST_PAGE));
}

/** `GET /contacts/:id`: one contact (404 for another project's id). */
export function useContact(projectId: string, id: string) {
  return useQuery({
    queryKey: contactKeys.one(projectId, id),
    queryFn: () => unwrap(api.GET('/contacts/{id}', { params: { path: { id } }, headers: inProject(projectId) })),
  });
}

/** `GET /events/contact/:contactId`: the contact's latest 100 events, newest first. */
export function useContactEvents(projectId: string, contactId: string) {
  return useQuery({
    queryKey: contactKeys.events(projectId, contactId),
    queryFn: () =>
      unwrap(
        api.GET('/events/contact/{contactId}', {
          params: { path: { contactId }, query: { limit: 100 } },
          headers: inProject(projectId),
        }),
      ),
  });
}

/**
 * `GET /contacts/:id/consent`: one page (10 entries) of the contact's consent log, newest first; the
 * page shown stays while the next one loads.
 */
export function useContactConsent(projectId: string, id: string, cursor: string | undefined) {
  return useQuery({
    queryKey: contactKeys.consent(projectId, id, cursor),
    queryFn: () =>
      unwrap(
        api.GET('/contacts/{id}/consent', {
          params: { path: { id }, query: { limit: 10, ...(cursor ? { cursor } : {}) } },
          headers: inProject(projectId),
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** `GET /contacts/fields`: standard and custom fields with their type and coverage in percent. */
export function useContactFields(projectId: string) {
  return useQuery({
    queryKey: contactKeys.fields(projectId),
    queryFn: () => unwrap(api.GET('/contacts/fields', { headers: inProject(projectId) })),
  });
}

/**
 * `GET /contacts/import/:jobId` or `GET /contacts/bulk/:jobId`, polled twice a second until the job
 * is completed or failed. Disabled while `jobId` is null.
 */
export function useContactJob(projectId: string, family: 'import' | 'bulk', jobId: string | null) {
  return useQuery({
    queryKey: contactKeys.job(projectId, family, jobId ?? ''),
    enabled: jobId !== null,
    queryFn: () =>
      family === 'import'
        ? unwrap(
            api.GET('/contacts/import/{jobId}', { params: { path: { jobId: jobId! } }, headers: inProject(projectId) }),
          )
        : unwrap(
            api.GET('/contacts/bulk/{jobId}', { params: { path: { jobId: jobId! } }, headers: inProject(projectId) }),
          ),
    refetchInterval: (q) =>
      q.state.data && (q.state.data.state === 'completed' || q.state.data.state === 'failed') ? false : 500,
    staleTime: 0,
  });
}

/** `POST /contacts`: creates (or, for a known email, updates) a contact. */
export const createContact = (
  projectId: string,
  body: { email: string; subscribed: boolean; data: Record<string, unknown> },
) => unwrap(api.POST('/contacts', { body, headers: inProject(projectId) }));

/** `PATCH /contacts/:id`: subscription and/or data (`null` deletes a key). */
export const patchContact = (
  projectId: string,
  id: string,
  body: { subscribed?: boolean; data?: Record<string, unknown> },
) => unwrap(api.PATCH('/contacts/{id}', { params: { path: { id } }, body, headers: inProject(projectId) }));

/** `DELETE /contacts/:id`. */
export const deleteContact = (projectId: string, id: string) =>
  unwrap(api.DELETE('/contacts/{id}', { params: { path: { id } }, headers: inProject(projectId) }));

/** `POST /contacts/bulk-subscribe|bulk-unsubscribe|bulk-delete`: queues the job, answers `{jobId}`. */
export function queueBulk(projectId: string, action: BulkAction, contactIds: string[]) {
  const opts = { body: { contactIds }, headers: inProject(projectId) };
  if (action === 'subscribe') return unwrap(api.POST('/contacts/bulk-subscribe', opts));
  if (action === 'unsubscribe') return unwrap(api.POST('/contacts/bulk-unsubscribe', opts));
  return unwrap(api.POST('/contacts/bulk-delete', opts));
}

/**
 * `POST /contacts/import` (multipart, field `file`, optional `mapping` `{column: target}` sent first):
 * queues the import, answers `{jobId}`.
 */
export function queueImport(projectId: string, file: File, mapping?: Record<string, string>) {
  const form = new FormData();
  if (mapping) form.append('mapping', JSON.stringify(mapping));
  form.append('file', file, file.name);
  // The route takes multipart, which the generated types cannot describe: the form goes as it is.
  return unwrap(
    api.POST('/contacts/import', {
      body: form as never,
      bodySerializer: (b: unknown) => b as FormData,
      headers: inProject(projectId),
    }),
  );
}

/**
 * `GET /contacts/export`: the contacts matching the list's filters as a CSV file, saved by the
 * browser under the name the server gives (`contacts-YYYY-MM-DD.csv`).
 */
export async function downloadContactsCsv(projectId: string, p: Pick<ListParams, 'search' | 'subscribed'>) {
  const { data, response } = await unwrapWithResponse(projectId, p);
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'contacts.csv';
  const url = URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has taken the blob once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function unwrapWithResponse(projectId: string, p: Pick<ListParams, 'search' | 'subscribed'>) {
  const call = api.GET('/contacts/export', {
    params: {
      query: {
        ...(p.search.trim() ? { search: p.search.trim() } : {}),
        ...(p.subscribed !== 'all' ? { subscribed: p.subscribed } : {}),
      },
    },
    headers: inProject(projectId),
    parseAs: 'blob',
  });
  const data = (await unwrap(call)) as unknown as Blob;
  return { data, response: (await call).response };
}

/** `PUT /contacts/:id/topics`: join (true) or leave (false) topics by id; answers every topic with the membership. */
export const setContactTopics = (projectId: string, id: string, topics: Record<string, boolean>) =>
  unwrap(
    api.PUT('/contacts/{id}/topics', { params: { path: { id } }, body: { topics }, headers: inProject(projectId) }),
  );
