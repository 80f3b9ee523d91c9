import { ADDRESS, MUTED, type GalleryTemplate } from './shared.js';

const preheader = 'The updates you follow, in one mail instead of many.';

/**
 * A weekly summary: one section per entry of `items` (`{title, summary, url}`), and a short note
 * instead when the list is empty or missing (a digest with nothing in it should rather not be sent,
 * but if it is, it says so).
 */
export const digest: GalleryTemplate = {
  key: 'digest',
  name: 'Weekly digest',
  description: 'Sums up the week: one short section per update, each with a link, from a list the sender passes in.',
  type: 'MARKETING',
  subject: 'Your week in review',
  preheader,
  blocks: {
    version: 1,
    style: { brandColor: '#0e7490', linkColor: '#0e7490' },
    preheader,
    blocks: [
      { id: 'digest-top', type: 'spacer', height: 16 },
      {
        id: 'digest-kicker',
        type: 'text',
        color: MUTED,
        fontSize: 14,
        html: "<p><strong>WEEKLY DIGEST</strong> · {{ period ?? 'This week' }}</p>",
      },
      { id: 'digest-heading', type: 'heading', level: 1, text: 'Your week in review' },
      {
        id: 'digest-intro',
        type: 'text',
        html:
          "<p>Hi {{ contact.firstName ?? 'there' }}, here is what happened in the projects you follow, " +
          'so you can catch up in two minutes.</p>',
      },
      { id: 'digest-divider', type: 'divider' },
      {
        id: 'digest-items',
        type: 'for',
        variable: 'item',
        collection: 'items',
        blocks: [
          { id: 'digest-item-title', type: 'heading', level: 2, text: '{{ item.title }}' },
          {
            id: 'digest-item-text',
            type: 'text',
            html: '<p>{{ item.summary }}</p><p><a href="{{ item.url }}">Open “{{ item.title }}”</a></p>',
          },
        ],
      },
      {
        id: 'digest-empty',
        type: 'if',
        condition: 'items == blank',
        blocks: [
          {
            id: 'digest-empty-text',
            type: 'text',
            html: '<p>A quiet week: nothing new in the projects you follow. Enjoy the calm.</p>',
          },
        ],
      },
      {
        id: 'digest-button',
        type: 'button',
        label: 'Open your workspace',
        href: "{{ workspaceUrl ?? 'https://example.com/app' }}",
      },
      {
        id: 'digest-settings',
        type: 'text',
        color: MUTED,
        fontSize: 14,
        html:
          '<p>Too much, or too little? You can get this digest daily, weekly or not at all in your ' +
          'preferences, linked below.</p>',
      },
      {
        id: 'digest-footer',
        type: 'footer',
        html: `<p>You are receiving this digest because you follow projects on Acme.<br>${ADDRESS}</p>`,
      },
    ],
  },
};
