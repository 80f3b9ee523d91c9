import { sql } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { newId } from '../lib/ids.js';
import { keyring } from '../lib/secret-places.js';
import { openStepConfig } from './step-secrets.js';
import { advance, finish } from './engine.js';
import { lockAt } from './loaded.js';
import { loadContact } from './steps.run.js';
import { callWebhook, type WebhookOutcome } from './webhook.js';

/**
 * A WEBHOOK step: taken in one transaction (step row RUNNING), called
 * outside any transaction (up to 3 attempts of 10 s, webhook.ts), then recorded in a second one
 * (COMPLETED and on, or FAILED and the execution FAILED), with the status and the (truncated)
 * response body on the step's output. A crash between the two runs the call again when the job is
 * retried: a webhook is delivered at least once, the rest of the workflow still exactly once.
 */
export async function runWebhookStep(deps: Deps, executionId: string, stepId: string): Promise<void> {
  const taken = await deps.db.transaction(async (tx) => {
    const at = await lockAt(tx, executionId, stepId, 'RUNNING');
    if (!at) return null;
    const now = deps.clock.now().toISOString();
    const r = await tx.execute<{ id: string; status: string }>(sql`
      insert into workflow_step_executions as se (id, execution_id, step_id, status, attempts, started_at, created_at)
      values (${newId()}, ${executionId}, ${stepId}, 'RUNNING', 0, ${now}::timestamptz, ${now}::timestamptz)
      on conflict (execution_id, step_id) do update set attempts = se.attempts where se.status = 'RUNNING'
      returning se.id, se.status`);
    if (!r.rows.length) return null;
    const contact = await loadContact(tx, at.exec.contactId);
    return { ...at, stepExecId: r.rows[0].id, contact };
  });
  if (!taken) return;
  const { exec, step, contact } = taken;
  let c: { url: string; method: string; headers?: Record<string, string>; body?: unknown };
  let unreadable: string | null = null;
  try {
    c = openStepConfig(keyring(deps), 'WEBHOOK', step.config as Record<string, unknown>) as typeof c;
  } catch (err) {
    // Not called at all: without its headers the request would go out without the receiver's token.
    c = { ...(step.config as typeof c), headers: undefined };
    unreadable = `The step's headers cannot be read: ${(err as Error).message}`;
  }
  const payload =
    c.body !== undefined
      ? c.body
      : {
          workflowId: exec.workflowId,
          executionId: exec.id,
          stepId: step.id,
          contact: contact
            ? { id: contact.id, email: contact.email, subscribed: contact.subscribed, data: contact.data }
            : null,
          event: exec.triggerData,
          context: exec.context,
        };
  const withBody = c.method !== 'GET' && c.method !== 'DELETE';
  const out: WebhookOutcome = unreadable
    ? { ok: false, error: unreadable, attempts: 0 }
    : await callWebhook(
        {
          url: c.url,
          method: c.method,
          headers: c.headers,
          body: withBody ? (typeof payload === 'string' ? payload : JSON.stringify(payload)) : undefined,
        },
        { allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES },
      );

  await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const output = {
      status: out.status ?? null,
      body: out.body ?? null,
      url: out.url ?? c.url,
      attempts: out.attempts,
    };
    const r = await tx.execute(sql`update workflow_step_executions set status = ${out.ok ? 'COMPLETED' : 'FAILED'},
        output = ${JSON.stringify(output)}::jsonb, error = ${out.ok ? null : (out.error ?? 'failed')}, attempts = ${out.attempts},
        completed_at = ${now.toISOString()}::timestamptz
      where id = ${taken.stepExecId} and status = 'RUNNING' returning id`);
    if (!r.rows.length) return;
    // The execution may have been cancelled meanwhile: then only the call is recorded.
    if (!(await lockAt(tx, executionId, stepId, 'RUNNING'))) return;
    if (out.ok) await advance(tx, { executionId, fromStepId: stepId, match: {}, now });
    else
      await finish(tx, {
        executionId,
        status: 'FAILED',
        reason: `Webhook failed: ${out.error ?? 'unknown error'}`,
        now,
      });
  });
}
