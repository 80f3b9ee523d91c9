import type { Deps } from '../deps.js';

/** Sender of account mails: SYSTEM_EMAIL_FROM, else no-reply at the public host. */
export function systemFrom(deps: Deps): string {
  if (deps.config.SYSTEM_EMAIL_FROM) return deps.config.SYSTEM_EMAIL_FROM;
  const host = new URL(deps.config.PUBLIC_URL).hostname;
  return `Pigeon <no-reply@${host.includes('.') ? host : `${host}.localdomain`}>`;
}

/** Sends a plain-text account mail (verification, password reset) through the configured transport. */
export async function sendAccountMail(deps: Deps, to: string, subject: string, text: string): Promise<void> {
  try {
    await deps.transport.send({ from: systemFrom(deps), to, subject, text });
  } catch (err) {
    // The account action itself succeeded; the user can ask for the mail again.
    deps.log.error({ err, to, subject }, 'account mail failed');
  }
}
