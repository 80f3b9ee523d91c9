import { ADDRESS, MUTED, type GalleryTemplate } from './shared.js';

const preheader = "Choose a new password with the link inside. If you didn't ask for this, ignore this mail.";

/**
 * Sent when someone asks to reset a password. `resetUrl` is the one-time link; without it the button
 * leads to the sign-in page's "forgot password" form, so a mail sent without data still helps.
 */
export const passwordReset: GalleryTemplate = {
  key: 'password-reset',
  name: 'Password reset',
  description: 'A one-time link to choose a new password, with what to do if the reader did not ask for it.',
  type: 'TRANSACTIONAL',
  subject: 'Reset your password',
  preheader,
  blocks: {
    version: 1,
    style: { brandColor: '#1d4ed8', linkColor: '#1d4ed8' },
    preheader,
    blocks: [
      { id: 'reset-top', type: 'spacer', height: 16 },
      { id: 'reset-heading', type: 'heading', level: 1, text: 'Reset your password' },
      {
        id: 'reset-intro',
        type: 'text',
        html:
          "<p>Hi {{ contact.firstName ?? 'there' }},</p>" +
          '<p>We received a request to reset the password of the account for <strong>{{ email }}</strong>. ' +
          'Choose a new one with the button below.</p>',
      },
      {
        id: 'reset-button',
        type: 'button',
        label: 'Choose a new password',
        href: "{{ resetUrl ?? 'https://example.com/forgot-password' }}",
      },
      {
        id: 'reset-expiry',
        type: 'text',
        html:
          "<p>The link works once, for the next {{ expiresIn ?? '60 minutes' }}. When it has expired, ask for a " +
          'new one on the sign-in page.</p>',
      },
      { id: 'reset-divider', type: 'divider' },
      {
        id: 'reset-not-you',
        type: 'text',
        color: MUTED,
        fontSize: 14,
        html:
          "<p><strong>Didn't ask for this?</strong> You can safely ignore this mail: your password stays as it " +
          'is, and nobody can change it without this link. If these mails keep coming, reply and let us know.</p>',
      },
      {
        id: 'reset-footer',
        type: 'footer',
        unsubscribe: false,
        preferences: false,
        html: `<p>Sent for security reasons to the address of your Acme account.<br>${ADDRESS}</p>`,
      },
    ],
  },
};
