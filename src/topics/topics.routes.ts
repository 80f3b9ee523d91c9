import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { audited, auditedCreate, auditedUpdate } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { callerOrigin } from '../consent/origin.js';
import { projectOf } from '../http/auth.js';
import { noContent, replies } from '../http/responses.js';
import { contactTopicsOut, createTopicBody, putContactTopicsBody, topicOut, updateTopicBody } from './topics.schema.js';
import * as svc from './topics.service.js';

// Path ids are plain strings: a malformed id is 404 like an unknown one.
const idParams = z.object({ id: z.string() });

/**
 * Subscription topics (`/topics`) and a contact's topics (`PUT /contacts/:id/topics`). Dashboard
 * authentication (secret key, or session + `X-Project-Id`); changing a topic needs OWNER or ADMIN
 * (the secret key counts as ADMIN), a contact's topics any member, like editing the contact.
 */
export async function topicsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // Changing them needs OWNER or ADMIN (the secret key counts as ADMIN, http/auth.ts).
  const admins = { roles: ['OWNER' as const, 'ADMIN' as const] };
  const tags = ['topics'];
  r.post(
    '/topics',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Add a topic: opt-out (every subscribed contact unless they leave it) or opt-in (only those who join)',
        body: createTopicBody,
        response: replies({ 201: topicOut }),
      },
    },
    async (req, reply) => {
      const out = await auditedCreate(deps, req, 'topic', {
        change: (d) => svc.createTopic(d, projectOf(req), req.body),
      });
      return reply.code(201).send(out);
    },
  );

  r.get(
    '/topics',
    {
      schema: {
        tags,
        summary: 'Topics of the project by name, with member counts',
        response: replies({ 200: z.array(topicOut) }),
      },
    },
    async (req) => svc.listTopics(deps, projectOf(req)),
  );

  r.get(
    '/topics/:id',
    { schema: { tags, summary: 'One topic', params: idParams, response: replies({ 200: topicOut }) } },
    async (req) => svc.getTopic(deps, projectOf(req), req.params.id),
  );

  r.patch(
    '/topics/:id',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Rename a topic, change its description, default or visibility',
        params: idParams,
        body: updateTopicBody,
        response: replies({ 200: topicOut }),
      },
    },
    async (req) =>
      auditedUpdate(deps, req, 'topic', {
        load: (d) => svc.getTopic(d, projectOf(req), req.params.id),
        change: (d) => svc.updateTopic(d, projectOf(req), req.params.id, req.body),
      }),
  );

  r.delete(
    '/topics/:id',
    {
      config: admins,
      schema: {
        tags,
        summary: "Delete a topic and its members' choices (the consent log keeps its entries)",
        params: idParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getTopic(d, projectOf(req), req.params.id);
        await svc.deleteTopic(d, projectOf(req), req.params.id);
        await audit('topic.delete', { type: 'topic', id: before.id }, { name: [before.name, null] });
      });
      return reply.code(204).send();
    },
  );

  r.put(
    '/contacts/:id/topics',
    {
      schema: {
        tags: ['contacts', ...tags],
        summary: 'Join (true) or leave (false) topics, by id or name; records consent and topic.joined/topic.left',
        params: idParams,
        body: putContactTopicsBody,
        response: replies({ 200: contactTopicsOut }),
      },
    },
    async (req) => svc.putContactTopics(deps, projectOf(req), req.params.id, req.body.topics, callerOrigin(req)),
  );
}
