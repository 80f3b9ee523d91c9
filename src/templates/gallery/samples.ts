/**
 * Example data for each starter template (by key): what a sender would pass in `POST /v1/send`'s
 * `data` or hold in contact data, as docs/email-gallery.md lists it. The gallery test renders every
 * starter with it, so the screenshots and the axe run see the loops and conditional sections filled.
 */
export const GALLERY_SAMPLE_DATA: Readonly<Record<string, Record<string, unknown>>> = {
  welcome: { dashboardUrl: 'https://example.com/app', trialEndsOn: '12 April' },
  'password-reset': { resetUrl: 'https://example.com/reset-password?token=3f9a2c', expiresIn: '30 minutes' },
  receipt: {
    orderNumber: 'A-10234',
    orderDate: '3 March 2026',
    paymentMethod: 'Visa ending 4242',
    items: [
      { name: 'Team plan, monthly', quantity: 1, price: '$49.00' },
      { name: 'Extra seats', quantity: 3, price: '$27.00' },
    ],
    discount: '$7.60',
    total: '$68.40',
    orderUrl: 'https://example.com/account/orders/A-10234',
  },
  newsletter: { issueNumber: 14 },
  'product-announcement': { featureUrl: 'https://example.com/reports/schedule' },
  'event-invitation': {
    eventName: 'Spring meetup in Springfield',
    eventDate: 'Thursday, 14 May',
    eventTime: '6:30 pm to 9:00 pm',
    venueName: 'The Old Print Works',
    venueAddress: '12 Harbour Road, Springfield',
    rsvpUrl: 'https://example.com/events/spring/rsvp',
  },
  're-engagement': {
    offerCode: 'WELCOMEBACK',
    offerEnds: '31 May',
    offerDiscount: '25%',
    offerUrl: 'https://example.com/pricing',
    loginUrl: 'https://example.com/login',
  },
  digest: {
    period: '4 to 10 May',
    items: [
      {
        title: 'Q3 roadmap',
        summary: 'Maya moved two milestones to August and left a comment for you on the launch plan.',
        url: 'https://example.com/projects/roadmap',
      },
      {
        title: 'Brand refresh',
        summary: 'Three new files, and the team settled on the darker blue for the logo.',
        url: 'https://example.com/projects/brand',
      },
    ],
    workspaceUrl: 'https://example.com/app',
  },
};
