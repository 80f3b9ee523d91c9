import type { Deps } from '../deps.js';

/** One account mail, ready for {@link deliverAccountMail}: the plain-text part and its HTML twin (users/account-mails.ts). */
export interface AccountMail {
  subject: string;
  text: string;
  html: string;
}

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
 * Hands an account mail (verification, password reset, invitation, a webhook endpoint's notice) to the
 * configured transport: a designed {@link AccountMail} (text and HTML parts), or a subject and a
 * plain text. @throws the transport's error, for a job to retry.
 */
export async function deliverAccountMail(
  deps: Deps,
  to: string,
  mail: AccountMail | string,
  text?: string,
): Promise<void> {
  const parts = typeof mail === 'string' ? { subject: mail, text: text ?? '' } : mail;
  await deps.transport.send({ from: systemFrom(deps), to, ...parts });
}

/** {@link deliverAccountMail} from a request: a failure is logged, not thrown. */
export async function sendAccountMail(deps: Deps, to: string, mail: AccountMail): Promise<void> {
  try {
    await deliverAccountMail(deps, to, mail);
  } catch (err) {
    // The account action itself succeeded; the user can ask for the mail again.
    deps.log.error({ err, to, subject: mail.subject }, 'account mail failed');
  }
}
