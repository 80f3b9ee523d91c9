import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditChanges } from '../audit/audit.js';
import { audited, auditedCreate } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import * as graph from './graph.service.js';
import { noContent, replies } from '../http/responses.js';
import {
  createStepBody,
  createTransitionBody,
  createWorkflowBody,
  deleteStepQuery,
  schedulePreviewOut,
  schedulePreviewQuery,
  stepOutSchema,
  stepParams,
  transitionOutSchema,
  transitionParams,
  updateStepBody,
  updateWorkflowBody,
  workflowFieldsOut,
  workflowFullOut,
  workflowListOut,
  workflowParams,
} from './workflows.schema.js';
import * as svc from './workflows.service.js';

const listQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .transform((n) => Math.min(n, 100)),
});

/**
 * Workflows and their steps and transitions; dashboard authentication (executions and stats:
 * executions.routes.ts). The caller's
 * role goes to the services that answer with steps: WEBHOOK headers are masked for MEMBERs.
 */
export async function workflowsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['workflows'];

  r.get(
    '/workflows',
    {
      schema: {
        tags,
        summary: 'Workflows of the project, newest first (offset page)',
        querystring: listQuery,
        response: replies({ 200: workflowListOut }),
      },
    },
    async (req) => svc.listWorkflows(deps, projectOf(req), req.query.page, req.query.pageSize),
  );

  r.get(
    '/workflows/fields',
    {
      schema: {
        tags,
        summary: 'Fields a CONDITION step can test: contact fields, data keys, event.data.*, context.*',
        response: replies({ 200: workflowFieldsOut }),
      },
    },
    async (req) => svc.workflowFields(deps, projectOf(req)),
  );

  r.get(
    '/workflows/schedule-preview',
    {
      schema: {
        tags,
        summary: "What a SCHEDULE trigger's cron does in the project's time zone: a sentence and the next 3 ticks",
        querystring: schedulePreviewQuery,
        response: replies({ 200: schedulePreviewOut }),
      },
    },
    async (req) => svc.schedulePreview(deps, projectOf(req), req.query.cron),
  );

  r.post(
    '/workflows',
    {
      schema: {
        tags,
        summary:
          'Create a workflow (disabled; an EVENT trigger unless triggerType says otherwise) with its TRIGGER step',
        body: createWorkflowBody,
        response: replies({ 201: workflowFullOut }),
      },
    },
    async (req, reply) => {
      const out = await auditedCreate(deps, req, 'workflow', {
        change: (d) => svc.createWorkflow(d, projectOf(req), req.body, req.auth),
      });
      return reply.code(201).send(out);
    },
  );

  r.get(
    '/workflows/:id',
    {
      schema: {
        tags,
        summary: 'One workflow with its steps and transitions',
        params: workflowParams,
        response: replies({ 200: workflowFullOut }),
      },
    },
    async (req) => svc.getWorkflowFull(deps, projectOf(req), req.params.id, req.auth),
  );

  r.patch(
    '/workflows/:id',
    {
      schema: {
        tags,
        summary: 'Change name, description, trigger (409 with live executions), enabled, allowReentry',
        params: workflowParams,
        body: updateWorkflowBody,
        response: replies({ 200: workflowFullOut }),
      },
    },
    async (req) =>
      audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getWorkflowFull(d, projectOf(req), req.params.id, req.auth);
        const after = await svc.updateWorkflow(d, projectOf(req), req.params.id, req.body, req.auth);
        const changes = auditChanges(before, after, Object.keys(req.body));
        // Turning a workflow on or off is its own action, the one a reviewer looks for.
        const verb = changes.enabled ? (after.enabled ? 'enable' : 'disable') : 'update';
        await audit(`workflow.${verb}`, { type: 'workflow', id: after.id }, changes);
        return after;
      }),
  );

  r.delete(
    '/workflows/:id',
    {
      schema: {
        tags,
        summary: 'Delete a workflow (409 while executions run or wait)',
        params: workflowParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getWorkflowFull(d, projectOf(req), req.params.id, req.auth);
        await svc.deleteWorkflow(d, projectOf(req), req.params.id);
        await audit('workflow.delete', { type: 'workflow', id: before.id }, { name: [before.name, null] });
      });
      return reply.code(204).send();
    },
  );

  r.post(
    '/workflows/:id/steps',
    {
      schema: {
        tags,
        summary: 'Add a step (config checked per type)',
        params: workflowParams,
        body: createStepBody,
        response: replies({ 201: stepOutSchema }),
      },
    },
    async (req, reply) => {
      const step = await audited(deps, req, projectOf(req), async (d, audit) => {
        const s = await graph.addStep(d, projectOf(req), req.params.id, req.body, req.auth);
        await audit('workflow.edit', { type: 'workflow', id: req.params.id }, { step: [null, s] });
        return s;
      });
      return reply.code(201).send(step);
    },
  );

  r.patch(
    '/workflows/:id/steps/:stepId',
    {
      schema: {
        tags,
        summary: 'Change a step name or config',
        params: stepParams,
        body: updateStepBody,
        response: replies({ 200: stepOutSchema }),
      },
    },
    async (req) =>
      audited(deps, req, projectOf(req), async (d, audit) => {
        const full = await svc.getWorkflowFull(d, projectOf(req), req.params.id, req.auth);
        const before = full.steps.find((s) => s.id === req.params.stepId) ?? null;
        const s = await graph.updateStep(d, projectOf(req), req.params.id, req.params.stepId, req.body, req.auth);
        await audit('workflow.edit', { type: 'workflow', id: req.params.id }, { step: [before, s] });
        return s;
      }),
  );

  r.delete(
    '/workflows/:id/steps/:stepId',
    {
      schema: {
        tags,
        summary: 'Delete a step; splice=true reconnects its predecessors to its single successor',
        params: stepParams,
        querystring: deleteStepQuery,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, projectOf(req), async (d, audit) => {
        await graph.deleteStep(d, projectOf(req), req.params.id, req.params.stepId, req.query.splice);
        await audit('workflow.edit', { type: 'workflow', id: req.params.id }, { step: [req.params.stepId, null] });
      });
      return reply.code(204).send();
    },
  );

  r.post(
    '/workflows/:id/transitions',
    {
      schema: {
        tags,
        summary: 'Connect two steps (graph rules: 422 naming the rule)',
        params: workflowParams,
        body: createTransitionBody,
        response: replies({ 201: transitionOutSchema }),
      },
    },
    async (req, reply) => {
      const t = await audited(deps, req, projectOf(req), async (d, audit) => {
        const added = await graph.addTransition(d, projectOf(req), req.params.id, req.body);
        await audit('workflow.edit', { type: 'workflow', id: req.params.id }, { transition: [null, added] });
        return added;
      });
      return reply.code(201).send(t);
    },
  );

  r.delete(
    '/workflows/:id/transitions/:transitionId',
    {
      schema: { tags, summary: 'Remove a transition', params: transitionParams, response: replies({ 204: noContent }) },
    },
    async (req, reply) => {
      await audited(deps, req, projectOf(req), async (d, audit) => {
        await graph.deleteTransition(d, projectOf(req), req.params.id, req.params.transitionId);
        await audit(
          'workflow.edit',
          { type: 'workflow', id: req.params.id },
          { transition: [req.params.transitionId, null] },
        );
      });
      return reply.code(204).send();
    },
  );
}
