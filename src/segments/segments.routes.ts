import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { auditChanges } from '../audit/audit.js';
import { audited, auditedCreate, auditedUpdate } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { AppError } from '../http/errors.js';
import { computeSegment, refreshSegmentCount } from './segments.compute.js';
import { noContent, replies, simpleOrEnvelope } from '../http/responses.js';
import {
  addMembersBody,
  addMembersOut,
  computeOut,
  countConditionBody,
  countConditionOut,
  createSegmentBody,
  removeMembersBody,
  removeMembersOut,
  segmentContactsOut,
  segmentContactsQuery,
  segmentListOut,
  segmentOutSchema,
  segmentParams,
  updateSegmentBody,
} from './segments.schema.js';
import * as svc from './segments.service.js';
import { callerOrigin } from '../consent/origin.js';

/** Segments; dashboard authentication. */
export async function segmentsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['segments'];

  r.post(
    '/segments',
    {
      schema: {
        tags,
        summary: 'Create a DYNAMIC (condition tree) or STATIC (member list) segment',
        body: createSegmentBody,
        response: replies({ 201: segmentOutSchema, 400: simpleOrEnvelope }),
      },
    },
    async (req, reply) => {
      const out = await auditedCreate(deps, req, 'segment', {
        change: (d) => svc.createSegment(d, projectOf(req), req.body),
      });
      return reply.code(201).send(out);
    },
  );

  r.post(
    '/segments/count',
    {
      schema: {
        tags,
        summary: 'Contacts an unsaved condition matches now (422 with field paths on a bad condition)',
        body: countConditionBody,
        response: replies({ 200: countConditionOut }),
      },
    },
    async (req) => svc.countCondition(deps, projectOf(req), req.body.condition),
  );

  r.get(
    '/segments',
    {
      schema: {
        tags,
        summary: 'All segments of the project, newest first (bare array)',
        response: replies({ 200: segmentListOut }),
      },
    },
    async (req) => svc.listSegments(deps, projectOf(req)),
  );

  r.get(
    '/segments/:id',
    {
      schema: {
        tags,
        summary: 'One segment with its cached memberCount',
        params: segmentParams,
        response: replies({ 200: segmentOutSchema }),
      },
    },
    async (req) => svc.getSegment(deps, projectOf(req), req.params.id),
  );

  r.patch(
    '/segments/:id',
    {
      schema: {
        tags,
        summary: 'Change name, description, trackMembership, or the condition of a DYNAMIC segment',
        params: segmentParams,
        body: updateSegmentBody,
        response: replies({ 200: segmentOutSchema }),
      },
    },
    async (req) =>
      auditedUpdate(deps, req, 'segment', {
        load: (d) => svc.getSegment(d, projectOf(req), req.params.id),
        change: (d) => svc.updateSegment(d, projectOf(req), req.params.id, req.body),
      }),
  );

  r.delete(
    '/segments/:id',
    {
      schema: {
        tags,
        summary: 'Delete a segment (409 while a scheduled or sending campaign uses it)',
        params: segmentParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getSegment(d, projectOf(req), req.params.id);
        await svc.deleteSegment(d, projectOf(req), req.params.id);
        await audit('segment.delete', { type: 'segment', id: before.id }, auditChanges({ name: before.name }, null));
      });
      return reply.code(204).send();
    },
  );

  r.get(
    '/segments/:id/contacts',
    {
      schema: {
        tags,
        summary: 'Contacts of a segment, page-based (live for DYNAMIC)',
        params: segmentParams,
        querystring: segmentContactsQuery,
        response: replies({ 200: segmentContactsOut }),
      },
    },
    async (req) => svc.segmentContacts(deps, projectOf(req), req.params.id, req.query.page, req.query.pageSize),
  );

  r.post(
    '/segments/:id/members',
    {
      schema: {
        tags,
        summary: 'Add contacts by email to a STATIC segment',
        params: segmentParams,
        body: addMembersBody,
        response: replies({ 200: addMembersOut }),
      },
    },
    async (req) =>
      audited(deps, req, projectOf(req), async (d, audit) => {
        const out = await svc.addMembers(d, projectOf(req), req.params.id, req.body, callerOrigin(req));
        await audit(
          'segment.add_members',
          { type: 'segment', id: req.params.id },
          { members: [null, req.body.emails.length] },
        );
        return out;
      }),
  );

  r.delete(
    '/segments/:id/members',
    {
      schema: {
        tags,
        summary: 'Remove contacts by email from a STATIC segment',
        params: segmentParams,
        body: removeMembersBody,
        response: replies({ 200: removeMembersOut }),
      },
    },
    async (req) =>
      audited(deps, req, projectOf(req), async (d, audit) => {
        const out = await svc.removeMembers(d, projectOf(req), req.params.id, req.body.emails);
        await audit(
          'segment.remove_members',
          { type: 'segment', id: req.params.id },
          { members: [req.body.emails.length, null] },
        );
        return out;
      }),
  );

  r.post(
    '/segments/:id/compute',
    {
      schema: {
        tags,
        summary: 'Recompute a tracked segment now: applies entries and exits, emits segment.<slug>.entry|exit',
        params: segmentParams,
        response: replies({ 200: computeOut }),
      },
    },
    async (req) => {
      const projectId = projectOf(req);
      const seg = await svc.loadSegment(deps, projectId, req.params.id);
      if (!seg.trackMembership) {
        throw new AppError(
          'BAD_REQUEST',
          'Segment does not track membership; set trackMembership, or use POST /segments/:id/refresh for a count',
        );
      }
      const res = await computeSegment(deps, projectId, seg.id);
      // added/removed/total: the names Plunk answers with, kept for its clients.
      return { ...res, added: res.entered, removed: res.exited, total: res.memberCount };
    },
  );

  r.post(
    '/segments/:id/refresh',
    {
      schema: {
        tags,
        summary: 'Recount the members (no events, no membership writes); answers the segment',
        params: segmentParams,
        response: replies({ 200: segmentOutSchema }),
      },
    },
    async (req) => {
      const projectId = projectOf(req);
      const seg = await svc.loadSegment(deps, projectId, req.params.id);
      await refreshSegmentCount(deps, projectId, seg.id);
      return svc.getSegment(deps, projectId, seg.id);
    },
  );
}
