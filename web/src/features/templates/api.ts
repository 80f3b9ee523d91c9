import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { BodyOf, ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

export type Template = ResponseOf<'/templates/{id}', 'get'>;
export type TemplateType = Template['type'];
export type TemplateInput = BodyOf<'/templates', 'post'>;
export type TemplateUsage = ResponseOf<'/templates/{id}/usage', 'get'>;
export type TemplatePreview = ResponseOf<'/templates/preview', 'post'>;
export type ContactSummary = ResponseOf<'/contacts', 'get'>['data'][number];

/** The list filters of the templates screen. */
export interface TemplateFilter {
  type?: 'MARKETING' | 'TRANSACTIONAL';
  search?: string;
  page: number;
}

/** Query keys of a project's templates (all under the project's key, so a project reset refreshes them). */
export const templateKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'templates'] as const,
  list: (projectId: string, f: TemplateFilter) => [...templateKeys.all(projectId), 'list', f] as const,
  one: (projectId: string, id: string) => [...templateKeys.all(projectId), 'one', id] as const,
  usage: (projectId: string, id: string) => [...templateKeys.all(projectId), 'usage', id] as const,
};

const PAGE_SIZE = 20;

/** `GET /templates`: one page (20) of the project's templates, newest first, by type and search. */
export function useTemplates(projectId: string, f: TemplateFilter) {
  return useQuery({
    queryKey: templateKeys.list(projectId, f),
    queryFn: () =>
      unwrap(
        api.GET('/templates', {
          params: { query: { page: f.page, pageSize: PAGE_SIZE, type: f.type, search: f.search || undefined } },
          headers: inProject(projectId),
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** `GET /templates/:id`. */
export function useTemplate(projectId: string, id: string | undefined) {
  return useQuery({
    queryKey: templateKeys.one(projectId, id ?? ''),
    queryFn: () => unwrap(api.GET('/templates/{id}', { params: { path: { id: id! } }, headers: inProject(projectId) })),
    enabled: Boolean(id),
  });
}

/** `GET /templates/:id/usage`: the workflow steps that send the template (campaigns copy content instead). */
export function useTemplateUsage(projectId: string, id: string, enabled = true) {
  return useQuery({
    queryKey: templateKeys.usage(projectId, id),
    queryFn: () =>
      unwrap(api.GET('/templates/{id}/usage', { params: { path: { id } }, headers: inProject(projectId) })),
    enabled,
  });
}

/** `POST /templates`: 422 with field errors, 403 when the From domain is not verified. */
export const createTemplate = (projectId: string, body: TemplateInput) =>
  unwrap(api.POST('/templates', { body, headers: inProject(projectId) }));

/** `PATCH /templates/:id`. */
export const updateTemplate = (projectId: string, id: string, body: Partial<TemplateInput>) =>
  unwrap(api.PATCH('/templates/{id}', { params: { path: { id } }, body, headers: inProject(projectId) }));

/** `DELETE /templates/:id`: 409 while an enabled workflow sends it. */
export const deleteTemplate = (projectId: string, id: string) =>
  unwrap(api.DELETE('/templates/{id}', { params: { path: { id } }, headers: inProject(projectId) }));

/** `POST /templates/:id/duplicate`: answers the copy ("<name> (copy)"). */
export const duplicateTemplate = (projectId: string, id: string) =>
  unwrap(api.POST('/templates/{id}/duplicate', { params: { path: { id } }, headers: inProject(projectId) }));

/**
 * `POST /templates/:id/test`: one "[TEST]" email of the saved template to `email` (any address; the
 * signed-in user when omitted), with the sample contact's data (`contactId`, else the user's own
 * contact's); it adds no contact. `locale`: the test carries that translation.
 */
export const sendTemplateTest = (
  projectId: string,
  id: string,
  contactId: string | null,
  email?: string,
  locale?: string | null,
) =>
  unwrap(
    api.POST('/templates/{id}/test', {
      params: { path: { id } },
      body: { contactId, ...(email ? { email } : {}), ...(locale ? { locale } : {}) },
      headers: inProject(projectId),
    }),
  );

/** `POST /templates/preview`: subject and HTML as delivery renders them; 422 `invalid_template` with line/column. */
export const previewTemplate = (projectId: string, body: BodyOf<'/templates/preview', 'post'>, signal?: AbortSignal) =>
  unwrap(api.POST('/templates/preview', { body, headers: inProject(projectId), signal }));

/** `GET /contacts?search`: the first 10 contacts whose email matches, for the preview's sample contact. */
export function useContactSearch(projectId: string, search: string) {
  return useQuery({
    queryKey: [...projectKeys.one(projectId), 'contacts', 'search', search] as const,
    queryFn: () =>
      unwrap(
        api.GET('/contacts', {
          params: { query: { search: search || undefined, limit: '10' } },
          headers: inProject(projectId),
        }),
      ),
    placeholderData: keepPreviousData,
  });
}
