import type { Deps } from '../deps.js';
import { escapeHtml } from '../lib/html.js';
import { quotedText, type AccountMail } from './account-mail.js';

/** What an account mail says: paragraphs, one button, and a closing line in small print. */
export interface AccountMailContent {
  subject: string;
  /** The mail's headline (the HTML's title line). */
  heading: string;
  /** Paragraphs of plain text (escaped for the HTML part; text a user chose must be {@link quotedText}-ed). */
  paragraphs: string[];
  /** The one action: its label and absolute URL. */
  button?: { label: string; url: string };
  /** Small print under the button (why the mail came, what to do if unexpected). */
  footnote: string;
}

const PRODUCT = 'Pigeon';
// Made with the first account mail: an Intl formatter with a time zone maps several MB of the Node.js
// binary's ICU data, which an idle process would otherwise hold from start-up.
let dayFormat: Intl.DateTimeFormat | undefined;

/** `3 December 2026` (UTC): dates in account mails are words, never ISO stamps. */
export const dateInWords = (d: Date): string =>
  (dayFormat ??= new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  })).format(d);

/** `1 hour`, `24 hours`, `7 days`: a token's lifetime in words (whole hours below two days). */
export function durationInWords(ms: number): string {
  const hours = Math.round(ms / 3600_000);
  if (hours < 48) return hours === 1 ? '1 hour' : `${hours} hours`;
  const days = Math.round(hours / 24);
  return `${days} days`;
}

/**
 * Renders an account mail: the text part is the paragraphs, the link on its own line and the
 * footnote; the HTML part is a single centred card (table layout and inline styles, which is what mail
 * clients keep) with the product's name, the heading, the paragraphs and a button, and the link spelled
 * out under it for clients that block buttons.
 */
export function renderAccountMail(c: AccountMailContent): AccountMail {
  const text = [
    ...c.paragraphs,
    ...(c.button ? [`${c.button.label}:\n${c.button.url}`] : []),
    c.footnote,
    `— ${PRODUCT}`,
  ].join('\n\n');
  const p = (s: string) =>
    `<p style="margin:0 0 16px;font-size:15px;line-height:1.55;color:#1f2937">${escapeHtml(s)}</p>`;
  const button = c.button
    ? `<table role="presentation" cellspacing="0" cellpadding="0" style="margin:8px 0 24px"><tr><td style="border-radius:8px;background:#4f46e5">` +
      `<a href="${escapeHtml(c.button.url)}" style="display:inline-block;padding:12px 22px;font-size:15px;font-weight:600;color:#ffffff;text-decoration:none;border-radius:8px">${escapeHtml(c.button.label)}</a>` +
      `</td></tr></table>` +
      `<p style="margin:0 0 16px;font-size:13px;line-height:1.5;color:#6b7280">Or paste this link into your browser:<br>` +
      `<a href="${escapeHtml(c.button.url)}" style="color:#4f46e5;word-break:break-all">${escapeHtml(c.button.url)}</a></p>`
    : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(c.subject)}</title></head>
<body style="margin:0;padding:0;background:#f3f4f6;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="background:#f3f4f6"><tr><td align="center" style="padding:32px 12px">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="max-width:520px">
<tr><td style="padding:0 4px 16px;font-size:18px;font-weight:700;color:#4f46e5">${PRODUCT}</td></tr>
<tr><td style="background:#ffffff;border-radius:12px;padding:32px 28px;border:1px solid #e5e7eb">
<h1 style="margin:0 0 20px;font-size:21px;line-height:1.3;color:#111827">${escapeHtml(c.heading)}</h1>
${c.paragraphs.map(p).join('\n')}
${button}
<p style="margin:0;font-size:13px;line-height:1.5;color:#6b7280">${escapeHtml(c.footnote)}</p>
</td></tr>
<tr><td style="padding:16px 4px 0;font-size:12px;color:#9ca3af">Sent by ${PRODUCT} about your account.</td></tr>
</table></td></tr></table>
</body></html>`;
  return { subject: c.subject, text, html };
}

/** The confirmation mail of a new account's address. */
export const verifyMail = (link: string, ttlMs: number): AccountMail =>
  renderAccountMail({
    subject: 'Verify your email address',
    heading: 'Confirm your email address',
    paragraphs: [`Welcome to ${PRODUCT}. Confirm that this address is yours to finish setting up your account.`],
    button: { label: 'Confirm my address', url: link },
    footnote: `The link works once and expires in ${durationInWords(ttlMs)}. If you did not create a ${PRODUCT} account, ignore this mail.`,
  });

/** The password reset mail. */
export const resetMail = (link: string, ttlMs: number): AccountMail =>
  renderAccountMail({
    subject: 'Reset your password',
    heading: 'Choose a new password',
    paragraphs: [`Someone asked to reset the password of your ${PRODUCT} account. If it was you, choose a new one.`],
    button: { label: 'Choose a new password', url: link },
    footnote: `The link works once and expires in ${durationInWords(ttlMs)}. If it was not you, ignore this mail: your password stays as it is.`,
  });

/**
 * In place of the reset link, to an account that signs in through the provider of an `sso-only`
 * instance (signup-policy.ts `passwordResetAllowed`).
 */
export const ssoAccountResetMail = (deps: Deps): AccountMail =>
  renderAccountMail({
    subject: `You sign in to ${PRODUCT} with ${deps.config.OIDC_NAME}`,
    heading: `Sign in with ${deps.config.OIDC_NAME}`,
    paragraphs: [
      `Someone asked to reset the password of your ${PRODUCT} account. This ${PRODUCT} server signs its people in through ${deps.config.OIDC_NAME}, so your account has no password to reset.`,
      `Open the login page and choose "Sign in with ${deps.config.OIDC_NAME}".`,
    ],
    button: { label: 'Go to the login page', url: `${deps.config.PUBLIC_URL}/app/login` },
    footnote: 'If it was not you, ignore this mail: nothing changed.',
  });

/** To an address that already has an account, when someone signs up with it. */
export const accountExistsMail = (deps: Deps): AccountMail =>
  renderAccountMail({
    subject: `Someone tried to create a ${PRODUCT} account with your address`,
    heading: 'You already have an account',
    paragraphs: [
      `Someone asked to create a ${PRODUCT} account for this address, which already has one. Nothing was changed.`,
      'If it was you, log in, or choose a new password if you forgot it.',
    ],
    button: { label: 'Log in', url: `${deps.config.PUBLIC_URL}/app/login` },
    footnote: `Forgot the password? Choose a new one at ${deps.config.PUBLIC_URL}/app/forgot-password. If it was not you, ignore this mail.`,
  });

/** To the new address of an account that asked to move to it. */
export const emailChangeMail = (deps: Deps, v: { link: string; newEmail: string; ttlMs: number }): AccountMail =>
  renderAccountMail({
    subject: `Confirm your new email address for ${PRODUCT}`,
    heading: 'Confirm your new address',
    paragraphs: [
      `Someone signed in to a ${PRODUCT} account at ${new URL(deps.config.PUBLIC_URL).host} asked to use ${quotedText(v.newEmail, 254)} as its address from now on.`,
      'If it was you, confirm the change; until then the account keeps its old address.',
    ],
    button: { label: 'Use this address', url: v.link },
    footnote: `The link works once and expires in ${durationInWords(v.ttlMs)}. If it was not you, ignore this mail: nothing changes.`,
  });

/** To the old address, once the account moved to a new one. */
export const emailChangedNotice = (deps: Deps, v: { newEmail: string }): AccountMail =>
  renderAccountMail({
    subject: `Your ${PRODUCT} account has a new email address`,
    heading: 'Your address was changed',
    paragraphs: [
      `Your ${PRODUCT} account at ${new URL(deps.config.PUBLIC_URL).host} now uses ${quotedText(v.newEmail, 254)}: you log in with it, and mail about the account goes there.`,
      `If you did not ask for this, someone else may know your password: tell your ${PRODUCT} server's administrator right away.`,
    ],
    footnote: 'This mail goes to the address the account had until now.',
  });
