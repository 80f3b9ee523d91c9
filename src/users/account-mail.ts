import type { Deps } from '../deps.js';

/** Longest user-chosen text an account mail quotes (a project's name), in characters. */
export const QUOTED_TEXT_MAX = 60;

/**
 * `value` (text a user chose: a project's name, an inviter's address) as an account mail may show it:
 * control characters and line breaks removed, whitespace collapsed, cut to `max` characters with an
 * ellipsis, and defanged so that no mail client turns it into a link (`hxxp://`, `example[.]com`,
 * `name[at]example[.]com`). Pigeon's mails carry their own links; a name must not carry another one:
 * whoever may name a project could otherwise send a link to anyone, in a mail from Pigeon.
 */
export function quotedText(value: string, max = QUOTED_TEXT_MAX): string {
  let v = value
    // Control characters are what this strips: the rule's warning is the point here.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if ([...v].length > max)
    v = `${[...v]
      .slice(0, max - 1)
      .join('')
      .trimEnd()}…`;
  return v
    .replace(/\b([a-z][a-z0-9+.-]*):\/\//gi, (_m, scheme: string) => `${scheme.replace(/t/gi, 'x')}[:]//`)
    .replace(/@/g, '[at]')
    .replace(/([\p{L}\p{N}-])\.(?=[\p{L}\p{N}])/gu, '$1[.]');
}

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
