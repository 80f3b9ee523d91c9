import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { BodyOf, ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

/** A scoped key as listed (never the key itself). */
export type ScopedKey = ResponseOf<'/projects/{id}/api-keys', 'get'>[number];
/** One scope a key can hold. */
export type Scope = BodyOf<'/projects/{id}/api-keys', 'post'>['scopes'][number];
/** A key just made: its listing and the key, shown this once. */
export type CreatedScopedKey = ResponseOf<'/projects/{id}/api-keys', 'post', 201>;

/**
 * The scopes a key can hold, by area, each with a sentence of what it opens (the server's table is
 * src/keys/scopes.ts; docs/security.md "API keys and scopes").
 */
export const SCOPE_GROUPS: Array<{ area: string; what: string; read?: Scope; write?: Scope; only?: Scope }> = [
  { area: 'Sending', what: 'POST /v1/send, /v1/verify and SMTP submission', only: 'send' },
  { area: 'Tracking', what: 'POST /v1/track and /events/track', only: 'track' },
  {
    area: 'Contacts',
    what: 'contacts, topics, forms, fields, suppressions, exports',
    read: 'contacts:read',
    write: 'contacts:write',
  },
  { area: 'Campaigns', what: 'campaigns and sending them', read: 'campaigns:read', write: 'campaigns:write' },
  { area: 'Templates', what: 'templates, the email style, images', read: 'templates:read', write: 'templates:write' },
  { area: 'Segments', what: 'segments and their members', read: 'segments:read', write: 'segments:write' },
  { area: 'Workflows', what: 'workflows, steps and runs', read: 'workflows:read', write: 'workflows:write' },
  { area: 'Analytics', what: 'events, activity, sent mails, reports', read: 'analytics:read' },
  { area: 'Webhooks', what: 'webhook endpoints and deliveries', read: 'webhooks:read', write: 'webhooks:write' },
  { area: 'Domains', what: 'sending domains and transports', read: 'domains:read', write: 'domains:write' },
];

/** Query key of a project's scoped keys. */
export const scopedKeyKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'api-keys'] as const,
};

/** `GET /projects/:id/api-keys`: the project's scoped keys, newest first. */
export function useScopedKeys(projectId: string) {
  return useQuery({
    queryKey: scopedKeyKeys.all(projectId),
    queryFn: () => unwrap(api.GET('/projects/{id}/api-keys', { params: { path: { id: projectId } } })),
  });
}

/** What the create dialog sends. */
export interface NewScopedKey {
  name: string;
  scopes: Scope[];
  allowedIps: string[];
  /** ISO date-time, or null for a key that does not expire. */
  expiresAt: string | null;
}

/** `POST /projects/:id/api-keys` (OWNER, ADMIN): the answer holds the key, shown once. */
export const createScopedKey = (projectId: string, v: NewScopedKey) =>
  unwrap(
    api.POST('/projects/{id}/api-keys', {
      params: { path: { id: projectId } },
      body: {
        name: v.name,
        scopes: v.scopes,
        allowedIps: v.allowedIps.length ? v.allowedIps : null,
        expiresAt: v.expiresAt,
      },
    }),
  );

/** `DELETE /projects/:id/api-keys/:keyId` (OWNER, ADMIN): the key stops working at once. */
export const deleteScopedKey = (projectId: string, keyId: string) =>
  unwrap(api.DELETE('/projects/{id}/api-keys/{keyId}', { params: { path: { id: projectId, keyId } } }));
