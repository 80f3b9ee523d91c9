import { sql } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { deliverAccountMail } from '../users/account-mail.js';

/**
 * Mails every OWNER and ADMIN of the endpoint's project that it was disabled (the account mail
 * transport, users/account-mail.ts). Nothing when the endpoint is gone or enabled again.
 * @throws the transport's error, for the job to retry.
 */
export async function mailEndpointDisabled(deps: Deps, endpointId: string): Promise<void> {
  const r = await deps.db.execute<{
    url: string;
    project_name: string;
    email: string;
  }>(sql`select e.url, p.name as project_name, u.email
    from webhook_endpoints e join projects p on p.id = e.project_id
    join memberships m on m.project_id = e.project_id and m.role in ('OWNER', 'ADMIN') join users u on u.id = m.user_id
    where e.id = ${endpointId} and not e.enabled`);
  for (const row of r.rows) {
    await deliverAccountMail(
      deps,
      row.email,
      `Webhook endpoint disabled in ${row.project_name}`,
      [
        `Every delivery to your webhook endpoint ${row.url} in the project "${row.project_name}" has failed for 5 days, so Pigeon disabled it.`,
        '',
        `Fix the receiver, then enable the endpoint again (PATCH /webhook-endpoints/${endpointId} with {"enabled": true}) and retry the failed deliveries from its delivery log.`,
      ].join('\n'),
    );
  }
}
