import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import * as repo from './links.repo.js';

/**
 * Per-link clicks of a campaign's mail: `{data: [{url, position, clicks, uniqueClicks, humanClicks}]}`.
 * @throws AppError 404 when the campaign is not the project's (or the id is not a uuid).
 */
export async function campaignLinks(deps: Deps, projectId: string, campaignId: string) {
  if (!isUuid(campaignId) || !(await repo.campaignIsProjects(deps.db, projectId, campaignId)))
    throw notFound('Campaign');
  return { data: await repo.campaignLinks(deps.db, projectId, campaignId) };
}

/**
 * Per-link clicks of the mail a workflow step sent, same shape as {@link campaignLinks}.
 * @throws AppError 404 when the workflow, or the step within it, is not the project's.
 */
export async function stepLinks(deps: Deps, projectId: string, workflowId: string, stepId: string) {
  if (!isUuid(workflowId) || !isUuid(stepId) || !(await repo.stepIsProjects(deps.db, projectId, workflowId, stepId)))
    throw notFound('Workflow step');
  return { data: await repo.stepLinks(deps.db, projectId, stepId) };
}
