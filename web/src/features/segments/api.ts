import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, inProject, unwrap } from '../../api/client';
import type { ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';
import type { ConditionTree } from './condition';

export type Segment = ResponseOf<'/segments/{id}', 'get'>;
export type SegmentMembers = ResponseOf<'/segments/{id}/contacts', 'get'>;

/** Query keys of a project's segments; `all` refreshes lists, details and members together. */
export const segmentKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'segments'] as const,
  list: (projectId: string) => [...segmentKeys.all(projectId), 'list'] as const,
  one: (projectId: string, id: string) => [...segmentKeys.all(projectId), 'one', id] as const,
  members: (projectId: string, id: string, page: number) =>
    [...segmentKeys.all(projectId), 'members', id, page] as const,
  count: (projectId: string, key: string) => [...segmentKeys.all(projectId), 'count', key] as const,
  options: (projectId: string) => [...projectKeys.one(projectId), 'condition-options'] as const,
};

/** `GET /segments`: every segment of the project, newest first. */
export function useSegments(projectId: string) {
  return useQuery({
    queryKey: segmentKeys.list(projectId),
    queryFn: () => unwrap(api.GET('/segments', { headers: inProject(projectId) })),
  });
}

/** `GET /segments/:id`: one segment with its cached member count. */
export function useSegment(projectId: string, id: string | undefined) {
  return useQuery({
    queryKey: segmentKeys.one(projectId, id ?? ''),
    enabled: Boolean(id),
    queryFn: () => unwrap(api.GET('/segments/{id}', { params: { path: { id: id! } }, headers: inProject(projectId) })),
  });
}

/** `GET /segments/:id/contacts`: one page (20) of members, live for dynamic segments. */
export function useSegmentMembers(projectId: string, id: string, page: number) {
  return useQuery({
    queryKey: segmentKeys.members(projectId, id, page),
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/segments/{id}/contacts', {
          params: { path: { id }, query: { page, pageSize: 20 } },
          headers: inProject(projectId),
        }),
      ),
  });
}

/** A value that follows `value` once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/**
 * `POST /segments/count`: contacts an unsaved condition matches, asked 400 ms after the last edit.
 * A 422 is the query's error: its field errors say which filter is wrong.
 */
export function useConditionCount(projectId: string, condition: ConditionTree | null) {
  const key = useDebounced(condition ? JSON.stringify(condition) : '', 400);
  return useQuery({
    queryKey: segmentKeys.count(projectId, key),
    enabled: key !== '',
    retry: false,
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(api.POST('/segments/count', { body: { condition: JSON.parse(key) }, headers: inProject(projectId) })),
  });
}

/** What the field picker offers: the data fields inventory, tracked event names and segments. */
export interface FieldOptions {
  dataFields: Array<{ field: string; type: string }>;
  events: string[];
  segments: Array<{ id: string; name: string }>;
}

/**
 * `GET /contacts/fields`, `GET /events/names` and `GET /segments`, as {@link FieldOptions}.
 * @param exceptSegment the segment being edited: a segment cannot be a filter of itself.
 */
export function useFieldOptions(projectId: string, exceptSegment?: string) {
  return useQuery({
    queryKey: segmentKeys.options(projectId),
    select: (o: FieldOptions) =>
      exceptSegment ? { ...o, segments: o.segments.filter((s) => s.id !== exceptSegment) } : o,
    queryFn: async (): Promise<FieldOptions> => {
      const h = { headers: inProject(projectId) };
      const [fields, events, segments] = await Promise.all([
        unwrap(api.GET('/contacts/fields', h)),
        unwrap(api.GET('/events/names', h)),
        unwrap(api.GET('/segments', h)),
      ]);
      return {
        dataFields: fields.filter((f) => !f.standard).map((f) => ({ field: `data.${f.field}`, type: f.type })),
        events: events.filter((e) => !e.reserved).map((e) => e.name),
        segments: segments.map((s) => ({ id: s.id, name: s.name })),
      };
    },
  });
}

export type SegmentBody = {
  name: string;
  description?: string | null;
  type?: 'DYNAMIC' | 'STATIC';
  condition?: ConditionTree;
  trackMembership?: boolean;
};

/** `POST /segments`. */
export const createSegment = (projectId: string, body: SegmentBody) =>
  unwrap(api.POST('/segments', { body, headers: inProject(projectId) }));

/** `PATCH /segments/:id`. */
export const updateSegment = (projectId: string, id: string, body: Omit<SegmentBody, 'type'>) =>
  unwrap(api.PATCH('/segments/{id}', { params: { path: { id } }, body, headers: inProject(projectId) }));

/** `DELETE /segments/:id` (409 while a scheduled or sending campaign uses it). */
export const deleteSegment = (projectId: string, id: string) =>
  unwrap(api.DELETE('/segments/{id}', { params: { path: { id } }, headers: inProject(projectId) }));

/** `POST /segments/:id/members`: adds contacts by email to a static segment. */
export const addMembers = (projectId: string, id: string, emails: string[]) =>
  unwrap(
    api.POST('/segments/{id}/members', {
      params: { path: { id } },
      body: { emails, createMissing: false, subscribed: true },
      headers: inProject(projectId),
    }),
  );

/** `DELETE /segments/:id/members`: removes contacts by email from a static segment. */
export const removeMembers = (projectId: string, id: string, emails: string[]) =>
  unwrap(
    api.DELETE('/segments/{id}/members', { params: { path: { id } }, body: { emails }, headers: inProject(projectId) }),
  );

/** `POST /segments/:id/compute`: applies entries and exits of a tracked segment now. */
export const computeSegment = (projectId: string, id: string) =>
  unwrap(api.POST('/segments/{id}/compute', { params: { path: { id } }, headers: inProject(projectId) }));
