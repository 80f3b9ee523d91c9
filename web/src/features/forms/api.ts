import { useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { BodyOf, ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

export type Form = ResponseOf<'/forms/{id}', 'get'>;
export type FormField = Form['fields'][number];
export type FormFieldType = FormField['type'];
export type FormInput = BodyOf<'/forms', 'post'>;

/** Query keys of a project's forms. */
export const formKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'forms'] as const,
  one: (projectId: string, id: string) => [...formKeys.all(projectId), 'one', id] as const,
};

/** `GET /forms`: the project's forms, newest first, with their counts. */
export function useForms(projectId: string) {
  return useQuery({
    queryKey: formKeys.all(projectId),
    queryFn: () => unwrap(api.GET('/forms', { headers: inProject(projectId) })),
  });
}

/** `GET /forms/:id`. */
export function useForm(projectId: string, id: string | undefined) {
  return useQuery({
    queryKey: formKeys.one(projectId, id ?? ''),
    queryFn: () => unwrap(api.GET('/forms/{id}', { params: { path: { id: id! } }, headers: inProject(projectId) })),
    enabled: Boolean(id),
  });
}

/** `GET /templates` (first 100): the choices of the confirmation template. */
export function useTemplateChoices(projectId: string) {
  return useQuery({
    queryKey: [...projectKeys.one(projectId), 'templates', 'picker'],
    queryFn: () =>
      unwrap(api.GET('/templates', { params: { query: { page: 1, pageSize: 100 } }, headers: inProject(projectId) })),
  });
}

/** `POST /forms`. */
export const createForm = (projectId: string, body: FormInput) =>
  unwrap(api.POST('/forms', { body, headers: inProject(projectId) }));

/** `PATCH /forms/:id`. */
export const updateForm = (projectId: string, id: string, body: FormInput) =>
  unwrap(api.PATCH('/forms/{id}', { params: { path: { id } }, body, headers: inProject(projectId) }));

/** `DELETE /forms/:id`. */
export const deleteForm = (projectId: string, id: string) =>
  unwrap(api.DELETE('/forms/{id}', { params: { path: { id } }, headers: inProject(projectId) }));
