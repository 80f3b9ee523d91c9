import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { noContent, replies } from '../http/responses.js';
import * as exec from './executions.service.js';
import * as stats from './stats.service.js';
import {
  cancelAllOut,
  executionDetailOut,
  executionListOut,
  executionParams,
  listExecutionsQuery,
  startExecutionBody,
  startExecutionOut,
  workflowParams,
  workflowStatsOut,
  workflowStatsQuery,
} from './workflows.schema.js';

/**
 * A workflow's executions (start by hand, list, read, cancel one or all) and its per-step stats;
 * dashboard authentication, like the workflow's own routes (workflows.routes.ts).
 */
export async function executionsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['workflows'];

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
