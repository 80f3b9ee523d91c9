import { ADDRESS, MUTED, type GalleryTemplate } from './shared.js';

const preheader = 'Your account is ready. Here are three steps to get the most out of it.';

/** Sent once, right after sign-up: what to do first, and who to ask. */
export const welcome: GalleryTemplate = {
  key: 'welcome',
  name: 'Welcome',
  description: 'Greets a new user after sign-up with three first steps and a link to the dashboard.',
  type: 'TRANSACTIONAL',
  subject: "Welcome aboard, {{ contact.firstName ?? 'friend' }}",
  preheader,
  blocks: {
    version: 1,
    style: { brandColor: '#4f46e5', linkColor: '#4f46e5' },
    preheader,
    blocks: [
      { id: 'welcome-top', type: 'spacer', height: 16 },
      { id: 'welcome-heading', type: 'heading', level: 1, text: "Welcome, {{ contact.firstName ?? 'there' }}!" },
      {
        id: 'welcome-intro',
        type: 'text',
        html:
          "<p>Thanks for signing up. Your account is ready, and we're glad you're here.</p>" +
          '<p>Most people are up and running in under ten minutes. Here is where to start:</p>' +
          '<ol>' +
          '<li><strong>Complete your profile</strong>, so your teammates know who they are working with.</li>' +
          '<li><strong>Invite a teammate</strong>: everything is easier with two.</li>' +
          "<li><strong>Open the sample project</strong> we've set up for you and change anything you like.</li>" +
          '</ol>',
      },
      {
        id: 'welcome-button',
        type: 'button',
        label: 'Open your dashboard',
        href: "{{ dashboardUrl ?? 'https://example.com/app' }}",
      },
      {
        id: 'welcome-trial',
        type: 'if',
        condition: 'trialEndsOn',
        blocks: [
          {
            id: 'welcome-trial-text',
            type: 'text',
            html:
              '<p>Your free trial runs until <strong>{{ trialEndsOn }}</strong>. Every feature is open to you until ' +
              'then, and we will remind you a few days before it ends: no surprise charges.</p>',
          },
        ],
      },
      { id: 'welcome-divider', type: 'divider' },
      {
        id: 'welcome-help',
        type: 'text',
        color: MUTED,
        fontSize: 14,
        html:
          '<p>Questions? Reply to this mail: a real person reads every answer, usually within a working day. ' +
          'Our <a href="https://example.com/help">help centre</a> has short guides for everything above.</p>',
      },
      {
        id: 'welcome-footer',
        type: 'footer',
        unsubscribe: false,
        preferences: false,
        html: `<p>You are receiving this mail because you created an account with Acme.<br>${ADDRESS}</p>`,
      },
    ],
  },
};
