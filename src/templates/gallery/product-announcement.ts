import { ADDRESS, MUTED, type GalleryTemplate } from './shared.js';

const preheader = 'Set a report up once and get it in your inbox every Monday morning.';

/** Announces one new feature: what it does, three reasons in columns, one call to action. */
export const productAnnouncement: GalleryTemplate = {
  key: 'product-announcement',
  name: 'Product announcement',
  description: 'Announces a new feature with a short pitch, three highlights side by side and one button.',
  type: 'MARKETING',
  subject: 'New: scheduled reports are here',
  preheader,
  blocks: {
    version: 1,
    style: { brandColor: '#6d28d9', linkColor: '#6d28d9' },
    preheader,
    blocks: [
      { id: 'launch-top', type: 'spacer', height: 16 },
      {
        id: 'launch-kicker',
        type: 'text',
        align: 'center',
        color: '#6d28d9',
        fontSize: 14,
        html: '<p><strong>NEW FEATURE</strong></p>',
      },
      { id: 'launch-heading', type: 'heading', level: 1, align: 'center', text: 'Scheduled reports are here' },
      {
        id: 'launch-intro',
        type: 'text',
        align: 'center',
        html:
          "<p>{{ contact.firstName ?? 'Hello' }}, you asked for it more than for anything else this year. Build a " +
          'report once, pick a day and an hour, and it lands in the inboxes of everyone who needs it. ' +
          'No more copying numbers into a slide on Monday morning.</p>',
      },
      {
        id: 'launch-button',
        type: 'button',
        label: 'Schedule your first report',
        href: "{{ featureUrl ?? 'https://example.com/reports/schedule' }}",
      },
      { id: 'launch-highlights-title', type: 'heading', level: 2, align: 'center', text: 'What you get' },
      {
        id: 'launch-highlights',
        type: 'columns',
        backgroundColor: '#f5f3ff',
        padding: [16, 0, 16, 0],
        columns: [
          {
            blocks: [
              { id: 'launch-h1-title', type: 'heading', level: 3, text: 'Any schedule' },
              {
                id: 'launch-h1-text',
                type: 'text',
                html: '<p>Daily, weekly or on the first of the month, in your own time zone.</p>',
              },
            ],
          },
          {
            blocks: [
              { id: 'launch-h2-title', type: 'heading', level: 3, text: 'Anyone can read' },
              {
                id: 'launch-h2-text',
                type: 'text',
                html: '<p>Send to colleagues and clients, even without an account.</p>',
              },
            ],
          },
          {
            blocks: [
              { id: 'launch-h3-title', type: 'heading', level: 3, text: 'Always current' },
              {
                id: 'launch-h3-text',
                type: 'text',
                html: '<p>Numbers are fetched at send time, never from a stale copy.</p>',
              },
            ],
          },
        ],
      },
      { id: 'launch-highlights-space', type: 'spacer', height: 8 },
      {
        id: 'launch-availability',
        type: 'text',
        html:
          '<p>Scheduled reports are available today on every plan, at no extra cost. The ' +
          '<a href="https://example.com/help/scheduled-reports">two-minute guide</a> shows the whole thing.</p>',
      },
      {
        id: 'launch-feedback',
        type: 'text',
        color: MUTED,
        fontSize: 14,
        html: '<p>Tried it? Tell us what is missing by replying to this mail. It goes straight to the team that built it.</p>',
      },
      {
        id: 'launch-footer',
        type: 'footer',
        html: `<p>You are receiving product news because you have an Acme account.<br>${ADDRESS}</p>`,
      },
    ],
  },
};
