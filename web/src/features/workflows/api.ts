import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, inProject, unwrap } from '../../api/client';
import type { BodyOf, ResponseOf } from '../../api/types';
import { projectKeys } from '../projects/api';

export type Workflow = ResponseOf<'/workflows/{id}', 'get'>;
export type WorkflowSummary = ResponseOf<'/workflows', 'get'>['data'][number];
export type Step = Workflow['steps'][number];
export type StepType = Step['type'];
export type Transition = Workflow['transitions'][number];
export type Execution = ResponseOf<'/workflows/{id}/executions', 'get'>['data'][number];
export type ExecutionStatus = Execution['status'];
export type ExecutionDetail = ResponseOf<'/workflows/{id}/executions/{executionId}', 'get'>;
export type StepRun = ExecutionDetail['steps'][number];
export type WorkflowFields = ResponseOf<'/workflows/fields', 'get'>;
export type NewStep = BodyOf<'/workflows/{id}/steps', 'post'>;
export type NewTransition = BodyOf<'/workflows/{id}/transitions', 'post'>;
export type WorkflowPatch = BodyOf<'/workflows/{id}', 'patch'>;

/** Query keys of a project's workflows; `all` refreshes the list and every open workflow. */
export const workflowKeys = {
  all: (projectId: string) => [...projectKeys.one(projectId), 'workflows'] as const,
  list: (projectId: string) => [...workflowKeys.all(projectId), 'list'] as const,
  one: (projectId: string, id: string) => [...workflowKeys.all(projectId), 'one', id] as const,
  executions: (projectId: string, id: string, status?: string) =>
    [...workflowKeys.one(projectId, id), 'executions', status ?? 'all'] as const,
  execution: (projectId: string, id: string, executionId: string) =>
    [...workflowKeys.one(projectId, id), 'execution', executionId] as const,
  fields: (projectId: string) => [...workflowKeys.all(projectId), 'fields'] as const,
  templates: (projectId: string) => [...projectKeys.one(projectId), 'templates', 'picker'] as const,
};

/** `GET /workflows`: the first 100 workflows, newest first, with step and execution counts. */
export function useWorkflows(projectId: string) {
  return useQuery({
    queryKey: workflowKeys.list(projectId),
    queryFn: () =>
      unwrap(api.GET('/workflows', { params: { query: { page: 1, pageSize: 100 } }, headers: inProject(projectId) })),
  });
}

/** `GET /workflows/:id`: the workflow with its steps and transitions. */
export function useWorkflow(projectId: string, id: string) {
  return useQuery({
    queryKey: workflowKeys.one(projectId, id),
    queryFn: () => unwrap(api.GET('/workflows/{id}', { params: { path: { id } }, headers: inProject(projectId) })),
  });
}

/** `GET /workflows/fields`: what a CONDITION can test, and the project's event names. */
export function useWorkflowFields(projectId: string) {
  return useQuery({
    queryKey: workflowKeys.fields(projectId),
    queryFn: () => unwrap(api.GET('/workflows/fields', { headers: inProject(projectId) })),
    staleTime: 60_000,
  });
}

/** `GET /templates`: the first 100 templates by name, for the SEND_EMAIL picker. */
export function useTemplateChoices(projectId: string) {
  return useQuery({
    queryKey: workflowKeys.templates(projectId),
    queryFn: () =>
      unwrap(
        api.GET('/templates', {
          params: { query: { pageSize: 100, sort: 'name', dir: 'asc' } },
          headers: inProject(projectId),
        }),
      ),
    staleTime: 30_000,
  });
}

/** `GET /workflows/:id/executions?status=`: the newest 100 executions. Refreshes every 5 s while open. */
export function useExecutions(projectId: string, id: string, status?: ExecutionStatus) {
  return useQuery({
    queryKey: workflowKeys.executions(projectId, id, status),
    queryFn: () =>
      unwrap(
        api.GET('/workflows/{id}/executions', {
          params: { path: { id }, query: { limit: 100, ...(status ? { status } : {}) } },
          headers: inProject(projectId),
        }),
      ),
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
  });
}

/** `GET /workflows/:id/executions/:executionId`: one execution with its step history; refreshes while it is live. */
export function useExecution(projectId: string, id: string, executionId: string | null) {
  return useQuery({
    queryKey: workflowKeys.execution(projectId, id, executionId ?? ''),
    enabled: executionId !== null,
    queryFn: () =>
      unwrap(
        api.GET('/workflows/{id}/executions/{executionId}', {
          params: { path: { id, executionId: executionId! } },
          headers: inProject(projectId),
        }),
      ),
    refetchInterval: (q) => (q.state.data && ['RUNNING', 'WAITING'].includes(q.state.data.status) ? 3000 : false),
  });
}

/**
 * `GET /workflows/schedule-preview?cron=`: the sentence and next ticks of a cron in the project's
 * time zone, asked as it is typed (the caller debounces); a 422 is the query's error (`invalid_cron`).
 */
export function useSchedulePreview(projectId: string, cron: string) {
  return useQuery({
    queryKey: [...workflowKeys.all(projectId), 'schedule-preview', cron] as const,
    queryFn: () =>
      unwrap(api.GET('/workflows/schedule-preview', { params: { query: { cron } }, headers: inProject(projectId) })),
    enabled: cron.trim().length > 0,
    retry: false,
    placeholderData: keepPreviousData,
  });
}

/** `POST /workflows`: a disabled workflow with its TRIGGER step (on `eventName`, or of `triggerType`). */
export const createWorkflow = (
  projectId: string,
  body: { name: string; eventName?: string; triggerType?: 'EVENT' | 'MANUAL' },
) => unwrap(api.POST('/workflows', { body: { ...body, allowReentry: false }, headers: inProject(projectId) }));

/** `PATCH /workflows/:id`: name, trigger (type and config), enabled, allowReentry. */
export const updateWorkflow = (projectId: string, id: string, body: WorkflowPatch) =>
  unwrap(api.PATCH('/workflows/{id}', { params: { path: { id } }, body, headers: inProject(projectId) }));

/** `DELETE /workflows/:id` (409 while executions run or wait). */
export const deleteWorkflow = (projectId: string, id: string) =>
  unwrap(api.DELETE('/workflows/{id}', { params: { path: { id } }, headers: inProject(projectId) }));

/** `POST /workflows/:id/steps`: the new step (its config is checked per type: 422 `config.<key>`). */
export const addStep = (projectId: string, id: string, body: NewStep) =>
  unwrap(api.POST('/workflows/{id}/steps', { params: { path: { id } }, body, headers: inProject(projectId) }));

/** `PATCH /workflows/:id/steps/:stepId`: name and config. */
export const updateStep = (
  projectId: string,
  id: string,
  stepId: string,
  body: { name?: string; config?: Record<string, unknown> },
) =>
  unwrap(
    api.PATCH('/workflows/{id}/steps/{stepId}', {
      params: { path: { id, stepId } },
      body,
      headers: inProject(projectId),
    }),
  );

/** `DELETE /workflows/:id/steps/:stepId?splice=true`: a step with one successor hands it to its parents. */
export const deleteStep = (projectId: string, id: string, stepId: string) =>
  unwrap(
    api.DELETE('/workflows/{id}/steps/{stepId}', {
      params: { path: { id, stepId }, query: { splice: 'true' } },
      headers: inProject(projectId),
    }),
  );

/** `POST /workflows/:id/transitions` (422 naming the broken graph rule and, in `details`, where). */
export const addTransition = (projectId: string, id: string, body: NewTransition) =>
  unwrap(api.POST('/workflows/{id}/transitions', { params: { path: { id } }, body, headers: inProject(projectId) }));

/** `DELETE /workflows/:id/transitions/:transitionId`. */
export const deleteTransition = (projectId: string, id: string, transitionId: string) =>
  unwrap(
    api.DELETE('/workflows/{id}/transitions/{transitionId}', {
      params: { path: { id, transitionId } },
      headers: inProject(projectId),
    }),
  );

/** `DELETE /workflows/:id/executions/:executionId`: cancels a running or waiting execution. */
export const cancelExecution = (projectId: string, id: string, executionId: string) =>
  unwrap(
    api.DELETE('/workflows/{id}/executions/{executionId}', {
      params: { path: { id, executionId } },
      headers: inProject(projectId),
    }),
  );

/** `POST /workflows/:id/executions/cancel-all` → `{cancelled}`. */
export const cancelAllExecutions = (projectId: string, id: string) =>
  unwrap(
    api.POST('/workflows/{id}/executions/cancel-all', { params: { path: { id } }, headers: inProject(projectId) }),
  );

/** The answer of a manual start for a list of contacts: the executions started and the contacts skipped. */
export type ManualStart = Extract<ResponseOf<'/workflows/{id}/executions', 'post', 201>, { skipped: unknown }>;

/**
 * `POST /workflows/:id/executions {contactIds}` (1 to 1000): an execution for each contact the
 * allowReentry rules let in, the others `skipped`; 422 naming ids that are no contacts of the project
 * (then nothing starts).
 */
export const startExecutions = async (projectId: string, id: string, contactIds: string[]): Promise<ManualStart> =>
  (await unwrap(
    api.POST('/workflows/{id}/executions', {
      params: { path: { id } },
      body: { contactIds, context: {} },
      headers: inProject(projectId),
    }),
  )) as ManualStart;
