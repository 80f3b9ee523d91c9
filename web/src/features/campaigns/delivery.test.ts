import { describe, expect, it } from 'vitest';
import { deliveryBody, deliveryProblems, previewQuery, sendingUntil, type DeliveryDraft } from './delivery';

const draft = (p: Partial<DeliveryDraft> = {}): DeliveryDraft => ({
  mode: 'now',
  spreadHours: 4,
  localTime: '09:00',
  windowOn: false,
  from: '09:00',
  to: '17:00',
  days: ['mon', 'tue'],
  ...p,
});

describe('composer delivery', () => {
  it('sends plain "now" as null and only the fields a mode uses', () => {
    expect(deliveryBody(draft())).toBeNull();
    expect(deliveryBody(draft({ mode: 'spread', spreadHours: '6' }))).toEqual({ mode: 'spread', spreadHours: 6 });
    expect(deliveryBody(draft({ mode: 'local-time', windowOn: true }))).toEqual({
      mode: 'local-time',
      localTime: '09:00',
      window: { from: '09:00', to: '17:00', days: ['mon', 'tue'] },
    });
    expect(previewQuery(draft({ mode: 'now', windowOn: true }))).toEqual({
      mode: 'now',
      from: '09:00',
      to: '17:00',
      days: 'mon,tue',
    });
  });

  it('refuses in sentences what the server would refuse', () => {
    expect(deliveryProblems(draft({ mode: 'spread', spreadHours: 0 }), false)).toHaveProperty('delivery.spreadHours');
    expect(deliveryProblems(draft({ windowOn: true, from: '18:00' }), false)).toEqual({
      'delivery.window.to': 'The window must close after it opens.',
    });
    expect(deliveryProblems(draft({ windowOn: true, days: [] }), false)).toHaveProperty('delivery.window.days');
    expect(deliveryProblems(draft({ mode: 'local-time', localTime: '08:00', windowOn: true }), false)).toHaveProperty(
      'delivery.localTime',
    );
    expect(deliveryProblems(draft({ mode: 'spread' }), true)).toHaveProperty('delivery.mode');
    expect(deliveryProblems(draft(), true)).toEqual({});
  });

  it('says until when a send goes on, only while it is ahead', () => {
    const now = new Date('2027-07-14T10:00:00Z');
    expect(sendingUntil('2027-07-13T10:00:00Z', now)).toBeNull();
    expect(sendingUntil(null, now)).toBeNull();
    expect(sendingUntil('2027-07-15T07:00:00Z', now)).toMatch(/^Sending until \w+/);
  });
});
