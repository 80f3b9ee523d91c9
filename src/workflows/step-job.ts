import type { Deps } from '../deps.js';
import { runStepTransactions } from './chain.js';
import { runWebhookStep } from './webhook.step.js';

/**
 * The `workflows:step` job: runs one step of one execution at most once, and the steps that follow
 * it without a wait (engine.ts); a WEBHOOK step's call is made after that transaction, outside any
 * (webhook.step.ts). Kept apart from the engine because the webhook step advances through it.
 */
export async function runStep(deps: Deps, executionId: string, stepId: string): Promise<void> {
  if (await runStepTransactions(deps, executionId, stepId)) await runWebhookStep(deps, executionId, stepId);
}
