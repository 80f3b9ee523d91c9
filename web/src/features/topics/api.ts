import { useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

export type Topic = ResponseOf<'/topics/{id}', 'get'>;
export type TopicDefault = Topic['default'];
export type TopicValues = {
  name: string;
  description: string;
  default: TopicDefault;
  public: boolean;
};

/** Query keys of a project's topics (a change also refreshes contacts, whose pages list topics). */
export const topicKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'topics'] as const,
};

/** `GET /topics`: the project's topics by name, with member counts. */
export function useTopics(projectId: string) {
  return useQuery({
    queryKey: topicKeys.all(projectId),
    queryFn: () => unwrap(api.GET('/topics', { headers: inProject(projectId) })),
  });
}

const body = (v: TopicValues) => ({
  name: v.name.trim(),
  description: v.description.trim() || null,
  default: v.default,
  public: v.public,
});

/** `POST /topics`. */
export const createTopic = (projectId: string, v: TopicValues) =>
  unwrap(api.POST('/topics', { body: body(v), headers: inProject(projectId) }));

/** `PATCH /topics/:id`. */
export const updateTopic = (projectId: string, id: string, v: TopicValues) =>
  unwrap(api.PATCH('/topics/{id}', { params: { path: { id } }, body: body(v), headers: inProject(projectId) }));

/** `DELETE /topics/:id` (409 while a campaign sends to it). */
export const deleteTopic = (projectId: string, id: string) =>
  unwrap(api.DELETE('/topics/{id}', { params: { path: { id } }, headers: inProject(projectId) }));
