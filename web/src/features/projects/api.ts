import { useQuery } from '@tanstack/react-query';
import { api, unwrap, unwrapAs } from '../../api/client';
import type { TrackingMode, UpdatedProject } from '../../api/types';

/**
 * Query keys of project data. Everything about one project starts with `projectKeys.one(id)`, so
 * `invalidateQueries({queryKey: projectKeys.one(id)})` refreshes all of it.
 */
export const projectKeys = {
  all: ['projects'] as const,
  one: (id: string) => ['project', id] as const,
  setupState: (id: string) => ['project', id, 'setup-state'] as const,
  security: (id: string) => ['project', id, 'security'] as const,
};

/** `GET /users/@me/projects`: the signed-in user's projects with their role and masked keys. */
export function useProjects() {
  return useQuery({ queryKey: projectKeys.all, queryFn: () => unwrap(api.GET('/users/@me/projects')) });
}

/** `GET /projects/:id/setup-state`: which onboarding steps are done. */
export function useSetupState(id: string) {
  return useQuery({
    queryKey: projectKeys.setupState(id),
    queryFn: () => unwrap(api.GET('/projects/{id}/setup-state', { params: { path: { id } } })),
    // A mail sent or an event tracked by the user's own app shows up without a reload.
    refetchInterval: 30_000,
  });
}

/** `GET /projects/:id/security`: masked keys and the member counts. */
export function useProjectSecurity(id: string) {
  return useQuery({
    queryKey: projectKeys.security(id),
    queryFn: () => unwrap(api.GET('/projects/{id}/security', { params: { path: { id } } })),
  });
}

/** `POST /users/@me/projects`: answers the full keys, shown only now. */
export const createProject = (name: string) => unwrap(api.POST('/users/@me/projects', { body: { name } }));

/** `PATCH /users/@me/projects/:id` (OWNER or ADMIN): rename, set the tracking mode, brand colour or time zone. */
export const updateProject = (
  id: string,
  body: { name?: string; tracking?: TrackingMode; brandColor?: string | null; timeZone?: string },
) => unwrapAs<UpdatedProject>(api.PATCH('/users/@me/projects/{id}', { params: { path: { id } }, body }));

/** `DELETE /users/@me/projects/:id` (OWNER): the project and all its data. */
export const deleteProject = (id: string) =>
  unwrap(api.DELETE('/users/@me/projects/{id}', { params: { path: { id } } }));

/** `POST /users/@me/projects/:id/reset` (OWNER): wipes contacts, events, emails, templates, campaigns… */
export const resetProject = (id: string) =>
  unwrap(api.POST('/users/@me/projects/{id}/reset', { params: { path: { id } } }));

/** `POST /users/@me/projects/:id/regenerate-keys` (OWNER or ADMIN): the new pair, shown only now. */
export const regenerateKeys = (id: string) =>
  unwrap(api.POST('/users/@me/projects/{id}/regenerate-keys', { params: { path: { id } } }));
