import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { BodyOf, ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

export type Endpoint = ResponseOf<'/webhook-endpoints', 'get'>[number];
export type EndpointWithSecret = ResponseOf<'/webhook-endpoints', 'post', 201>;
export type Delivery = ResponseOf<'/webhook-endpoints/{id}/deliveries', 'get'>['data'][number];
export type DeliveryStatus = Delivery['status'];
export type EndpointInput = BodyOf<'/webhook-endpoints', 'post'>;
export type EndpointPatch = BodyOf<'/webhook-endpoints/{id}', 'patch'>;

/** Rows per page of the delivery log. */
export const DELIVERIES_PAGE = 25;

export const webhookKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'webhook-endpoints'] as const,
  one: (projectId: string, id: string) => [...webhookKeys.all(projectId), 'one', id] as const,
  deliveries: (projectId: string, id: string) => [...webhookKeys.all(projectId), 'deliveries', id] as const,
};

/** `GET /webhook-endpoints`: the project's endpoints, newest first. */
export function useEndpoints(projectId: string) {
  return useQuery({
    queryKey: webhookKeys.all(projectId),
    queryFn: () => unwrap(api.GET('/webhook-endpoints', { headers: inProject(projectId) })),
  });
}

/** `GET /webhook-endpoints/:id`. */
export function useEndpoint(projectId: string, id: string) {
  return useQuery({
    queryKey: webhookKeys.one(projectId, id),
    queryFn: () =>
      unwrap(api.GET('/webhook-endpoints/{id}', { params: { path: { id } }, headers: inProject(projectId) })),
  });
}

/**
 * `GET /webhook-endpoints/:id/deliveries`: one page of the log, newest first. While a delivery is
 * still PENDING the page asks again every 3 s (its next attempt may land any moment).
 */
export function useDeliveries(projectId: string, id: string, status: DeliveryStatus | null, cursor?: string) {
  return useQuery({
    queryKey: [...webhookKeys.deliveries(projectId, id), status, cursor ?? null] as const,
    queryFn: () =>
      unwrap(
        api.GET('/webhook-endpoints/{id}/deliveries', {
          params: { path: { id }, query: { limit: DELIVERIES_PAGE, cursor, status: status ?? undefined } },
          headers: inProject(projectId),
        }),
      ),
    placeholderData: keepPreviousData,
    refetchOnMount: 'always',
    refetchInterval: (q) => (q.state.data?.data.some((d) => d.status === 'PENDING') ? 3000 : false),
  });
}

/** `POST /webhook-endpoints`: answers the endpoint with its signing secret (shown once). */
export const createEndpoint = (projectId: string, body: EndpointInput) =>
  unwrap(api.POST('/webhook-endpoints', { body, headers: inProject(projectId) }));

/** `PATCH /webhook-endpoints/:id`: url, events, description or enabled. */
export const updateEndpoint = (projectId: string, id: string, body: EndpointPatch) =>
  unwrap(api.PATCH('/webhook-endpoints/{id}', { params: { path: { id } }, body, headers: inProject(projectId) }));

/** `DELETE /webhook-endpoints/:id` (and its delivery log). */
export const deleteEndpoint = (projectId: string, id: string) =>
  unwrap(api.DELETE('/webhook-endpoints/{id}', { params: { path: { id } }, headers: inProject(projectId) }));

/** `POST /webhook-endpoints/:id/rotate-secret`: the new secret, shown once; the old one stops at once. */
export const rotateSecret = (projectId: string, id: string) =>
  unwrap(
    api.POST('/webhook-endpoints/{id}/rotate-secret', { params: { path: { id } }, headers: inProject(projectId) }),
  );

/** `POST /webhook-endpoints/:id/test`: a `webhook.test` event sent now; answers the logged delivery. */
export const sendTest = (projectId: string, id: string) =>
  unwrap(api.POST('/webhook-endpoints/{id}/test', { params: { path: { id } }, headers: inProject(projectId) }));

/** `POST /webhook-endpoints/:id/deliveries/:deliveryId/retry`: one more attempt, now. */
export const retryDelivery = (projectId: string, id: string, deliveryId: string) =>
  unwrap(
    api.POST('/webhook-endpoints/{id}/deliveries/{deliveryId}/retry', {
      params: { path: { id, deliveryId } },
      headers: inProject(projectId),
    }),
  );
