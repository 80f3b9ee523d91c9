import { useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import { projectKeys } from '../projects/api';

/** Query key of a project's domains. */
export const domainKeys = {
  list: (projectId: string) => [...projectKeys.one(projectId), 'domains'] as const,
};

/** `GET /domains/project/:projectId`: the project's sender domains with their records. */
export function useDomains(projectId: string) {
  return useQuery({
    queryKey: domainKeys.list(projectId),
    queryFn: () =>
      unwrap(
        api.GET('/domains/project/{projectId}', { params: { path: { projectId } }, headers: inProject(projectId) }),
      ),
  });
}

/** `POST /domains`: adds a domain with a fresh DKIM key; its records are pending. */
export const addDomain = (projectId: string, domain: string) =>
  unwrap(api.POST('/domains', { body: { domain }, headers: inProject(projectId) }));

/** `GET /domains/:id/verify`: checks the DNS records now (a few seconds at most) and answers the domain. */
export const verifyDomain = (projectId: string, id: string) =>
  unwrap(api.GET('/domains/{id}/verify', { params: { path: { id } }, headers: inProject(projectId) }));

/** `DELETE /domains/:id`: removes the domain and its DKIM key. */
export const deleteDomain = (projectId: string, id: string) =>
  unwrap(api.DELETE('/domains/{id}', { params: { path: { id } }, headers: inProject(projectId) }));
