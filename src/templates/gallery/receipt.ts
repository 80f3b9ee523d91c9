import { ADDRESS, MUTED, type GalleryTemplate } from './shared.js';

const preheader = 'Thanks for your order. Keep this mail for your records.';

/**
 * Sent after a payment. `items` is a list of `{name, quantity, price}` (prices as formatted text,
 * `"$12.00"`): the sender formats money, so currency and locale stay theirs.
 */
export const receipt: GalleryTemplate = {
  key: 'receipt',
  name: 'Receipt',
  description: 'Confirms a payment with the order number, one line per item, an optional discount and the total.',
  type: 'TRANSACTIONAL',
  subject: 'Your receipt from Acme',
  preheader,
  blocks: {
    version: 1,
    style: { brandColor: '#047857', linkColor: '#047857' },
    preheader,
    blocks: [
      { id: 'receipt-top', type: 'spacer', height: 16 },
      { id: 'receipt-heading', type: 'heading', level: 1, text: 'Thanks for your order' },
      {
        id: 'receipt-intro',
        type: 'text',
        html: "<p>Hi {{ contact.firstName ?? 'there' }}, we have received your payment. Here is what you bought.</p>",
      },
      {
        id: 'receipt-meta',
        type: 'columns',
        backgroundColor: '#ecfdf5',
        padding: [12, 0, 12, 0],
        columns: [
          {
            blocks: [
              { id: 'receipt-number', type: 'text', html: "<p><strong>Order</strong><br>{{ orderNumber ?? '—' }}</p>" },
            ],
          },
          {
            blocks: [
              { id: 'receipt-date', type: 'text', html: "<p><strong>Date</strong><br>{{ orderDate ?? 'Today' }}</p>" },
            ],
          },
          {
            blocks: [
              {
                id: 'receipt-method',
                type: 'text',
                html: "<p><strong>Paid with</strong><br>{{ paymentMethod ?? 'Card' }}</p>",
              },
            ],
          },
        ],
      },
      { id: 'receipt-meta-space', type: 'spacer', height: 8 },
      {
        id: 'receipt-items',
        type: 'for',
        variable: 'item',
        collection: 'items',
        blocks: [
          {
            id: 'receipt-item',
            type: 'text',
            padding: [6, 24, 6, 24],
            // One text per line, not two columns: columns stack on a phone and would put each price
            // a screen's height under its name.
            html: '<p><strong>{{ item.name }}</strong><br>Quantity {{ item.quantity ?? 1 }} · {{ item.price }}</p>',
          },
        ],
      },
      { id: 'receipt-divider', type: 'divider' },
      {
        id: 'receipt-discount',
        type: 'if',
        condition: 'discount',
        blocks: [{ id: 'receipt-discount-line', type: 'text', html: '<p>Discount: −{{ discount }}</p>' }],
      },
      {
        id: 'receipt-total-if',
        type: 'if',
        condition: 'total',
        blocks: [{ id: 'receipt-total', type: 'heading', level: 2, text: 'Total paid: {{ total }}' }],
      },
      {
        id: 'receipt-button',
        type: 'button',
        label: 'View your order',
        href: "{{ orderUrl ?? 'https://example.com/account/orders' }}",
      },
      {
        id: 'receipt-help',
        type: 'text',
        color: MUTED,
        fontSize: 14,
        html:
          '<p>Something not right with this order? Reply to this mail with your order number and we will sort ' +
          'it out. An invoice for your accounts is available on the order page.</p>',
      },
      {
        id: 'receipt-footer',
        type: 'footer',
        unsubscribe: false,
        preferences: false,
        html: `<p>This receipt was sent to {{ email }} for a purchase from Acme.<br>${ADDRESS}</p>`,
      },
    ],
  },
};
