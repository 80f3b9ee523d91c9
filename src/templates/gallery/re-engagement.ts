import { ADDRESS, MUTED, type GalleryTemplate } from './shared.js';

const preheader = 'A lot has changed since your last visit. Here are the highlights.';

/**
 * Wins back a contact who has not been active for a while: what is new, an optional offer
 * (`offerCode`), and an honest way out, since a reader who leaves is better than one who marks spam.
 */
export const reEngagement: GalleryTemplate = {
  key: 're-engagement',
  name: 'Re-engagement',
  description: 'Brings back inactive contacts with what is new, an optional offer code and an easy way to opt out.',
  type: 'MARKETING',
  subject: "We've missed you, {{ contact.firstName ?? 'friend' }}",
  preheader,
  blocks: {
    version: 1,
    style: { brandColor: '#c2410c', linkColor: '#c2410c' },
    preheader,
    blocks: [
      { id: 'winback-top', type: 'spacer', height: 16 },
      { id: 'winback-heading', type: 'heading', level: 1, text: "It's been a while" },
      {
        id: 'winback-intro',
        type: 'text',
        html:
          "<p>Hi {{ contact.firstName ?? 'there' }},</p>" +
          "<p>We haven't seen you in a few months, and a lot has changed since your last visit. " +
          'Here is what you missed:</p>' +
          '<ul>' +
          '<li><strong>A faster app</strong>: pages open twice as quickly as they did in spring.</li>' +
          '<li><strong>A mobile app</strong> for iPhone and Android, with everything you use on the web.</li>' +
          '<li><strong>Shared workspaces</strong>, so your team sees the same thing you do.</li>' +
          '</ul>',
      },
      {
        id: 'winback-offer',
        type: 'if',
        condition: 'offerCode',
        blocks: [
          { id: 'winback-offer-title', type: 'heading', level: 2, text: 'A welcome-back gift' },
          {
            id: 'winback-offer-text',
            type: 'text',
            html:
              "<p>Use the code <strong>{{ offerCode }}</strong> at checkout before {{ offerEnds ?? 'the end of the month' }} " +
              "for {{ offerDiscount ?? '20%' }} off your next three months. " +
              '<a href="{{ offerUrl ?? \'https://example.com/pricing\' }}">See plans and prices</a>.</p>',
          },
        ],
      },
      {
        id: 'winback-button',
        type: 'button',
        label: "See what's new",
        href: "{{ loginUrl ?? 'https://example.com/login' }}",
      },
      {
        id: 'winback-out',
        type: 'text',
        color: MUTED,
        fontSize: 14,
        html:
          '<p>Not for you anymore? No hard feelings. You can unsubscribe with one click below, or choose ' +
          'fewer mails in your preferences. Either way, thank you for the time you spent with us.</p>',
      },
      {
        id: 'winback-footer',
        type: 'footer',
        html: `<p>You are receiving this mail because you have an Acme account.<br>${ADDRESS}</p>`,
      },
    ],
  },
};
