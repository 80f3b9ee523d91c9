import { expect } from 'vitest';
import type { TestProject } from './factories.js';
import { jobsDueNow } from './graphile-test.js';
import type { Harness } from './harness.js';
import { eventually } from './sending-fixtures.js';

/** Small builders for workflow tests over the real API. */
export function workflowApi(h: Harness, p: TestProject) {
  const req = (method: string, path: string, body?: unknown) => h.request(method, path, { key: p.secretKey, body });
  return {
    req,
    /** Creates a workflow, adds `steps` (name → [type, config]), links them, and enables it. @returns step ids by name (`trigger` included). */
    async build(
      eventName: string,
      steps: Record<string, [string, Record<string, unknown>]>,
      links: Array<[string, string, Record<string, unknown>?]>,
      opts: { allowReentry?: boolean; enabled?: boolean } = {},
    ) {
      const wf = await req('POST', '/workflows', {
        name: `wf ${eventName}`,
        eventName,
        allowReentry: opts.allowReentry ?? false,
      });
      expect(wf.status, wf.text).toBe(201);
      const ids: Record<string, string> = { trigger: wf.body.steps[0].id };
      for (const [name, [type, config]] of Object.entries(steps)) {
        const s = await req('POST', `/workflows/${wf.body.id}/steps`, { type, name, config });
        expect(s.status, s.text).toBe(201);
        ids[name] = s.body.id;
      }
      for (const [from, to, extra] of links) {
        const t = await req('POST', `/workflows/${wf.body.id}/transitions`, {
          fromStepId: ids[from],
          toStepId: ids[to],
          ...extra,
        });
        expect(t.status, t.text).toBe(201);
      }
      if (opts.enabled ?? true)
        expect((await req('PATCH', `/workflows/${wf.body.id}`, { enabled: true })).status).toBe(200);
      return { id: wf.body.id as string, steps: ids };
    },
    /** `POST /v1/track` with the public key. @returns the contact id. */
    async track(email: string, event: string, data?: Record<string, unknown>): Promise<string> {
      const res = await h.request('POST', '/v1/track', { key: p.publicKey, body: { email, event, data } });
      expect(res.status, res.text).toBe(200);
      return res.body.data.contact;
    },
    /** Waits until the contact's execution of the workflow has `status` (and optionally stands at `stepId`). */
    async executionOf(workflowId: string, contactId: string, status: string, stepId?: string) {
      return eventually(
        async () => {
          const rows = await h.sql(
            `select * from workflow_executions where workflow_id = $1 and contact_id = $2 order by id desc limit 1`,
            [workflowId, contactId],
          );
          const e = rows[0];
          return e && e.status === status && (!stepId || e.current_step_id === stepId) ? e : undefined;
        },
        20_000,
        `execution ${status}${stepId ? ` at ${stepId}` : ''}`,
      );
    },
    /**
     * Brings a delay or wait-timeout job forward to now by its job key (instead of sleeping for
     * hours): test/graphile-test.ts `jobsDueNow`.
     */
    async runKeyedJobNow(key: string): Promise<number> {
      return jobsDueNow(h, key);
    },
  };
}
