import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import * as exec from './executions.service.js';
import * as graph from './graph.service.js';
import { noContent, replies } from '../http/responses.js';
import {
  cancelAllOut,
  createStepBody,
  createTransitionBody,
  createWorkflowBody,
  deleteStepQuery,
  executionDetailOut,
  executionListOut,
  executionParams,
  listExecutionsQuery,
  schedulePreviewOut,
  schedulePreviewQuery,
  startExecutionBody,
  startExecutionOut,
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
  workflowStatsOut,
  workflowStatsQuery,
} from './workflows.schema.js';
import * as stats from './stats.service.js';
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
 * Workflows, their steps and executions; dashboard authentication. The caller's
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
    async (req, reply) => reply.code(201).send(await svc.createWorkflow(deps, projectOf(req), req.body, req.auth)),
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
    async (req) => svc.updateWorkflow(deps, projectOf(req), req.params.id, req.body, req.auth),
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
      await svc.deleteWorkflow(deps, projectOf(req), req.params.id);
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
    async (req, reply) =>
      reply.code(201).send(await graph.addStep(deps, projectOf(req), req.params.id, req.body, req.auth)),
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
    async (req) => graph.updateStep(deps, projectOf(req), req.params.id, req.params.stepId, req.body, req.auth),
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
      await graph.deleteStep(deps, projectOf(req), req.params.id, req.params.stepId, req.query.splice);
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
    async (req, reply) =>
      reply.code(201).send(await graph.addTransition(deps, projectOf(req), req.params.id, req.body)),
  );

  r.delete(
    '/workflows/:id/transitions/:transitionId',
    {
      schema: { tags, summary: 'Remove a transition', params: transitionParams, response: replies({ 204: noContent }) },
    },
    async (req, reply) => {
      await graph.deleteTransition(deps, projectOf(req), req.params.id, req.params.transitionId);
      return reply.code(204).send();
    },
  );

  r.post(
    '/workflows/:id/executions',
    {
      schema: {
        tags,
        summary:
          'Start executions by hand: {contactId} answers the execution (409 by allowReentry), {contactIds} (1 to 1000) lists those started and skipped',
        params: workflowParams,
        body: startExecutionBody,
        response: replies({ 201: startExecutionOut }),
      },
    },
    async (req, reply) => {
      const { contactId, contactIds, context } = req.body;
      const project = projectOf(req);
      return reply
        .code(201)
        .send(
          contactIds
            ? await exec.startManualMany(deps, project, req.params.id, contactIds, context)
            : await exec.startManual(deps, project, req.params.id, contactId!, context),
        );
    },
  );

  r.get(
    '/workflows/:id/stats',
    {
      schema: {
        tags,
        summary:
          'Per step over [from, to): entered, completed, failed, exited, waiting now; SEND_EMAIL steps their mail (raw and human opens and clicks)',
        params: workflowParams,
        querystring: workflowStatsQuery,
        response: replies({ 200: workflowStatsOut }),
      },
    },
    async (req) => stats.workflowStats(deps, projectOf(req), req.params.id, req.query),
  );

  r.get(
    '/workflows/:id/executions',
    {
      schema: {
        tags,
        summary: 'Executions, newest first (cursor page), filterable by status',
        params: workflowParams,
        querystring: listExecutionsQuery,
        response: replies({ 200: executionListOut }),
      },
    },
    async (req) => exec.listExecutions(deps, projectOf(req), req.params.id, req.query),
  );

  r.post(
    '/workflows/:id/executions/cancel-all',
    {
      schema: {
        tags,
        summary: 'Cancel every running or waiting execution',
        params: workflowParams,
        response: replies({ 200: cancelAllOut }),
      },
    },
    async (req) => exec.cancelAll(deps, projectOf(req), req.params.id),
  );

  r.get(
    '/workflows/:id/executions/:executionId',
    {
      schema: {
        tags,
        summary: 'One execution with its step history',
        params: executionParams,
        response: replies({ 200: executionDetailOut }),
      },
    },
    async (req) => exec.getExecution(deps, projectOf(req), req.params.id, req.params.executionId),
  );

  r.delete(
    '/workflows/:id/executions/:executionId',
    {
      schema: {
        tags,
        summary: 'Cancel a running or waiting execution (its pending delay/wait jobs are removed)',
        params: executionParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await exec.cancelExecution(deps, projectOf(req), req.params.id, req.params.executionId);
      return reply.code(204).send();
    },
  );
}
