import { ADDRESS, MUTED, type GalleryTemplate } from './shared.js';

const preheader = 'An evening of short talks and good conversation. Seats are limited.';

/** Invites to an event: what, when and where in two columns, the programme, and one RSVP button. */
export const eventInvitation: GalleryTemplate = {
  key: 'event-invitation',
  name: 'Event invitation',
  description: 'Invites contacts to an event with the date, the place, the programme and an RSVP button.',
  type: 'MARKETING',
  subject: "You're invited: {{ eventName ?? 'our spring meetup' }}",
  preheader,
  blocks: {
    version: 1,
    style: { brandColor: '#be123c', linkColor: '#be123c' },
    preheader,
    blocks: [
      { id: 'event-top', type: 'spacer', height: 16 },
      {
        id: 'event-kicker',
        type: 'text',
        color: '#be123c',
        fontSize: 14,
        html: "<p><strong>YOU'RE INVITED</strong></p>",
      },
      { id: 'event-heading', type: 'heading', level: 1, text: "{{ eventName ?? 'Our spring meetup' }}" },
      {
        id: 'event-intro',
        type: 'text',
        html:
          "<p>Hi {{ contact.firstName ?? 'there' }},</p>" +
          '<p>Join us for an evening of short talks from people building with our product every day, followed ' +
          'by food, drinks and time to meet the team. Bring your questions, and bring a colleague.</p>',
      },
      {
        id: 'event-details',
        type: 'columns',
        backgroundColor: '#fff1f2',
        padding: [12, 0, 12, 0],
        columns: [
          {
            blocks: [
              { id: 'event-when-title', type: 'heading', level: 2, text: 'When' },
              {
                id: 'event-when',
                type: 'text',
                html: "<p>{{ eventDate ?? 'Thursday, 14 May' }}<br>{{ eventTime ?? '6:30 pm to 9:00 pm' }}</p>",
              },
            ],
          },
          {
            blocks: [
              { id: 'event-where-title', type: 'heading', level: 2, text: 'Where' },
              {
                id: 'event-where',
                type: 'text',
                html: "<p>{{ venueName ?? 'The Old Print Works' }}<br>{{ venueAddress ?? '12 Harbour Road, Springfield' }}</p>",
              },
            ],
          },
        ],
      },
      {
        id: 'event-button',
        type: 'button',
        label: 'Save your seat',
        href: "{{ rsvpUrl ?? 'https://example.com/events/rsvp' }}",
      },
      { id: 'event-programme-title', type: 'heading', level: 2, text: 'The programme' },
      {
        id: 'event-programme',
        type: 'text',
        html:
          '<ul>' +
          '<li><strong>6:30 pm</strong> Doors open, drinks and introductions</li>' +
          '<li><strong>7:00 pm</strong> Three 15-minute talks from customers</li>' +
          '<li><strong>8:00 pm</strong> Questions for the team, then dinner</li>' +
          '</ul>',
      },
      {
        id: 'event-access',
        type: 'text',
        html:
          '<p>The venue is step-free, with an accessible toilet. Let us know on the sign-up page if you need ' +
          'anything else to take part: we will make it happen.</p>',
      },
      {
        id: 'event-cannot',
        type: 'text',
        color: MUTED,
        fontSize: 14,
        html: "<p>Can't make it? Every talk is recorded, and we will send you the videos the week after.</p>",
      },
      {
        id: 'event-footer',
        type: 'footer',
        html: `<p>You are receiving this invitation because you subscribed to event news from Acme.<br>${ADDRESS}</p>`,
      },
    ],
  },
};
