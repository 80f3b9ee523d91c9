import { ADDRESS, MUTED, type GalleryTemplate } from './shared.js';

const preheader = 'Two stories from this month, three good reads and one thing to try this week.';

/** A monthly newsletter: a lead story, a second story, reading tips in two columns and where to follow along. */
export const newsletter: GalleryTemplate = {
  key: 'newsletter',
  name: 'Newsletter',
  description:
    'A monthly newsletter with a lead story, a second story, reading tips in two columns and where to follow along.',
  type: 'MARKETING',
  subject: 'The Monthly: what we shipped, learned and read',
  preheader,
  blocks: {
    version: 1,
    style: { brandColor: '#0f766e', linkColor: '#0f766e' },
    preheader,
    blocks: [
      { id: 'news-top', type: 'spacer', height: 16 },
      {
        id: 'news-kicker',
        type: 'text',
        color: MUTED,
        fontSize: 14,
        html: '<p><strong>THE MONTHLY</strong> · Issue {{ issueNumber ?? 12 }}</p>',
      },
      { id: 'news-heading', type: 'heading', level: 1, text: 'Small changes, big afternoons' },
      {
        id: 'news-intro',
        type: 'text',
        html:
          "<p>Hi {{ contact.firstName ?? 'there' }},</p>" +
          '<p>This month we chased seconds: the kind you lose a hundred times a day to a slow page or an extra ' +
          'click. Here is what came out of it, and what we read along the way.</p>',
      },
      { id: 'news-story-1-heading', type: 'heading', level: 2, text: 'Search now answers as you type' },
      {
        id: 'news-story-1',
        type: 'text',
        html:
          '<p>Results now appear after the second letter, and the ones you open most often come first. On large ' +
          'workspaces a search used to take over a second; it now takes less than a tenth of one.</p>',
      },
      {
        id: 'news-story-1-button',
        type: 'button',
        label: 'Read how we made it fast',
        align: 'left',
        href: 'https://example.com/blog/faster-search',
      },
      { id: 'news-divider-1', type: 'divider' },
      { id: 'news-story-2-heading', type: 'heading', level: 2, text: 'A calmer inbox, on your terms' },
      {
        id: 'news-story-2',
        type: 'text',
        html:
          '<p>Notifications can now wait for a daily summary instead of arriving one by one. Pick the hour that ' +
          'suits you, and urgent ones, like a failed payment, still come straight away. ' +
          '<a href="https://example.com/settings/notifications">Choose your summary time</a>.</p>',
      },
      { id: 'news-divider-2', type: 'divider' },
      { id: 'news-reads-heading', type: 'heading', level: 2, text: 'Worth your time' },
      {
        id: 'news-reads',
        type: 'columns',
        // No padding of its own: the columns' text lines up with the text above and below.
        padding: [0, 0, 0, 0],
        columns: [
          {
            blocks: [
              {
                id: 'news-read-1',
                type: 'text',
                html:
                  '<p><strong><a href="https://example.com/reads/deep-work">Protecting deep work</a></strong><br>' +
                  'Why two quiet hours beat a full day of meetings, and how one team made them stick.</p>',
              },
            ],
          },
          {
            blocks: [
              {
                id: 'news-read-2',
                type: 'text',
                html:
                  '<p><strong><a href="https://example.com/reads/writing-well">Writing for busy readers</a></strong><br>' +
                  'Five habits that make any update shorter and clearer, from subject line to sign-off.</p>',
              },
            ],
          },
        ],
      },
      {
        id: 'news-try',
        type: 'text',
        html:
          '<p><strong>Try this week:</strong> press <strong>/</strong> anywhere in the app to jump straight to ' +
          'search. It is the shortcut our own team uses most.</p>',
      },
      {
        id: 'news-reply',
        type: 'text',
        color: MUTED,
        fontSize: 14,
        html: '<p>What should we write about next month? Reply to this mail: we read every answer.</p>',
      },
      {
        // Links in words rather than a social block: its icons are images hosted by MJML's makers,
        // which a reader with images off (or offline) does not get.
        id: 'news-follow',
        type: 'text',
        align: 'center',
        fontSize: 14,
        html:
          '<p>Follow us on <a href="https://www.linkedin.com/company/example">LinkedIn</a> and ' +
          '<a href="https://mastodon.social/@example">Mastodon</a>, or read past issues on ' +
          '<a href="https://example.com/newsletter">our website</a>.</p>',
      },
      {
        id: 'news-footer',
        type: 'footer',
        html: `<p>You are receiving The Monthly because you subscribed to news from Acme.<br>${ADDRESS}</p>`,
      },
    ],
  },
};
