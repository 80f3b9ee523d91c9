import { useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { BodyOf, ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

export type TransportList = ResponseOf<'/transports', 'get'>;
export type Transport = TransportList['transports'][number];
export type TransportHealth = Transport['health'];
export type RuleSet = ResponseOf<'/transports/rules', 'get'>;
export type Rule = RuleSet['rules'][number];
export type TestAnswer = ResponseOf<'/transports/{id}/test', 'post'>;
export type CreateTransport = BodyOf<'/transports', 'post'>;
export type UpdateTransport = BodyOf<'/transports/{id}', 'patch'>;

/** Query keys of the Sending tab. */
export const transportKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'transports'] as const,
  rules: (projectId: string) => [...projectKeys.one(projectId), 'transports', 'rules'] as const,
};

/** `GET /transports`: the project's transports and the instance's default one, with their health. */
export function useTransports(projectId: string) {
  return useQuery({
    queryKey: transportKeys.all(projectId),
    queryFn: () => unwrap(api.GET('/transports', { headers: inProject(projectId) })),
  });
}

/** `GET /transports/rules`: the routing rules in order. */
export function useRules(projectId: string) {
  return useQuery({
    queryKey: transportKeys.rules(projectId),
    queryFn: () => unwrap(api.GET('/transports/rules', { headers: inProject(projectId) })),
  });
}

/** `POST /transports` (OWNER, ADMIN). */
export const createTransport = (projectId: string, body: CreateTransport) =>
  unwrap(api.POST('/transports', { body, headers: inProject(projectId) }));

/** `PATCH /transports/:id` (OWNER, ADMIN): settings without a password keep the stored one. */
export const updateTransport = (projectId: string, id: string, body: UpdateTransport) =>
  unwrap(api.PATCH('/transports/{id}', { params: { path: { id } }, body, headers: inProject(projectId) }));

/** `DELETE /transports/:id` (409 with a sentence while a routing rule lists it). */
export const deleteTransport = (projectId: string, id: string) =>
  unwrap(api.DELETE('/transports/{id}', { params: { path: { id } }, headers: inProject(projectId) }));

/** `POST /transports/:id/test`: opens a connection now and says what happened. */
export const testTransport = (projectId: string, id: string) =>
  unwrap(api.POST('/transports/{id}/test', { params: { path: { id } }, headers: inProject(projectId) }));

/** `PUT /transports/rules`: replaces every rule at once. */
export const saveRules = (projectId: string, rules: Rule[]) =>
  unwrap(api.PUT('/transports/rules', { body: { rules }, headers: inProject(projectId) }));

const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** A breaker's state in words: "Healthy", "Failing over since 10:42: connection refused", "Probing". */
export function healthWords(h: TransportHealth): { tone: 'success' | 'warning' | 'danger'; text: string } {
  if (h.state === 'half_open') return { tone: 'warning', text: 'Probing' };
  if (h.state === 'open') {
    const since = h.openedAt ? ` since ${time.format(new Date(h.openedAt))}` : '';
    return { tone: 'danger', text: `Failing over${since}${h.lastError ? `: ${h.lastError}` : ''}` };
  }
  return { tone: 'success', text: 'Healthy' };
}
