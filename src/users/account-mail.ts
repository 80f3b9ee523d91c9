import type { Deps } from '../deps.js';

/** Sender of account mails: SYSTEM_EMAIL_FROM, else no-reply at the public host. */
export function systemFrom(deps: Deps): string {
  if (deps.config.SYSTEM_EMAIL_FROM) return deps.config.SYSTEM_EMAIL_FROM;
  const host = new URL(deps.config.PUBLIC_URL).hostname;
  return `Pigeon <no-reply@${host.includes('.') ? host : `${host}.localdomain`}>`;
}

/**
 * Hands a plain-text account mail (verification, password reset, invitation) to the configured
 * transport. @throws the transport's error, for a job to retry.
 */
export async function deliverAccountMail(deps: Deps, to: string, subject: string, text: string): Promise<void> {
  await deps.transport.send({ from: systemFrom(deps), to, subject, text });
}

/** {@link deliverAccountMail} from a request: a failure is logged, not thrown. */
export async function sendAccountMail(deps: Deps, to: string, subject: string, text: string): Promise<void> {
  try {
    await deliverAccountMail(deps, to, subject, text);
  } catch (err) {
    // The account action itself succeeded; the user can ask for the mail again.
    deps.log.error({ err, to, subject }, 'account mail failed');
  }
}
