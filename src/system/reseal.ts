import type { Deps } from '../deps.js';
import { resealDkimKeys } from '../domains/domains.service.js';
import { resealPublicKeys } from '../projects/projects.service.js';
import { resealTotpSecrets } from '../users/sign-in/totp.js';
import { resealTransportSecrets } from '../transports/transports.service.js';
import { resealWebhookSecrets } from '../webhook-endpoints/webhook-endpoints.service.js';
import { resealStepHeaders } from '../workflows/graph.service.js';

/**
 * Start-up step, after the migrations: every secret at rest brought to the current encryption key
 * (lib/secrets.ts): plaintext of earlier versions sealed, values of an earlier `ENCRYPTION_KEY`
 * (listed in `ENCRYPTION_KEY_PREVIOUS`) re-wrapped. Idempotent and safe when processes start together.
 * A value no configured key opens is logged, not fatal: its domain, endpoint, step or transport fails with that
 * reason when used, and the rest of the service runs.
 */
export async function resealSecrets(deps: Pick<Deps, 'db' | 'config' | 'secret' | 'log'>): Promise<void> {
  const places = [
    ['DKIM private keys', resealDkimKeys],
    ['webhook signing secrets', resealWebhookSecrets],
    ['WEBHOOK step headers', resealStepHeaders],
    ['project public keys', resealPublicKeys],
    ['transport passwords and secret keys', resealTransportSecrets],
    ['two-factor (TOTP) secrets', resealTotpSecrets],
  ] as const;
  for (const [what, reseal] of places) {
    const r = await reseal(deps);
    if (r.changed) deps.log.info({ changed: r.changed }, `${what} sealed with the current encryption key`);
    if (r.unreadable) {
      deps.log.error(
        { unreadable: r.unreadable },
        `${what}: ${r.unreadable} cannot be opened with ENCRYPTION_KEY (or the instance secret) nor ENCRYPTION_KEY_PREVIOUS; set the key they were sealed with`,
      );
    }
  }
}
