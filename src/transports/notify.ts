import { sql } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { deliverAccountMail } from '../users/account-mail.js';
import { queueWebhookDeliveries } from '../webhook-endpoints/fanout.js';
import type { BreakerChange } from './breaker.js';

/**
 * Tells of a breaker change (breaker.ts): the log always; for a project's transport also its event
 * webhooks (`transport.degraded` / `transport.recovered`, data `{transportId, name, error, retryAt}`)
 * and a mail to the project's OWNERs and ADMINs. Never throws: the mail that caused the change must
 * still be recorded, so a failure here is logged.
 */
export async function transportChanged(deps: Deps, change: BreakerChange): Promise<void> {
  const { transport, projectId } = change;
  deps.metrics.transportBreaker.set({ transport }, change.change === 'degraded' ? 2 : 0);
  const line =
    change.change === 'degraded'
      ? 'transport failing: its mail goes to the next transport of each route'
      : 'transport recovered: its mail goes to it again';
  if (change.change === 'degraded') deps.log.warn({ transport, error: change.error, retryAt: change.retryAt }, line);
  else deps.log.info({ transport }, line);
  if (!projectId) return;
  try {
    const r = await deps.db.execute<{ name: string; project_name: string; emails: string[] | null }>(sql`
      select t.name, p.name as project_name,
        (select array_agg(u.email) from memberships m join users u on u.id = m.user_id
          where m.project_id = p.id and m.role in ('OWNER', 'ADMIN')) as emails
      from transports t join projects p on p.id = t.project_id where t.id = ${transport}::uuid`);
    const row = r.rows[0];
    if (!row) return;
    const at = deps.clock.now();
    await queueWebhookDeliveries(deps.db, projectId, [
      {
        type: `transport.${change.change}`,
        data: {
          transportId: transport,
          name: row.name,
          error: change.error,
          retryAt: change.retryAt?.toISOString() ?? null,
        },
        at,
      },
    ]);
    const [subject, text] =
      change.change === 'degraded'
        ? [
            `Transport "${row.name}" is failing in ${row.project_name}`,
            [
              `Pigeon could not send through your transport "${row.name}" in the project "${row.project_name}": ${change.error ?? 'it failed several times in a row'}.`,
              '',
              'Its mail now goes to the next transport of each routing rule; mail whose route has no other transport waits and is tried again.',
              `Pigeon tries "${row.name}" again with one mail${change.retryAt ? ` at ${change.retryAt.toISOString()}` : ' shortly'}, and tells you when it works again.`,
            ].join('\n'),
          ]
        : [
            `Transport "${row.name}" works again in ${row.project_name}`,
            `Pigeon sent through your transport "${row.name}" in the project "${row.project_name}" again, so its mail goes back to it.`,
          ];
    for (const email of row.emails ?? []) await deliverAccountMail(deps, email, subject, text);
  } catch (err) {
    deps.log.error({ err, transport }, 'could not tell the project of a transport change');
  }
}
