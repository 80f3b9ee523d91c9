import { describe, expect, it } from 'vitest';
import type { Step, Transition } from './api';
import { freeOutlets, splitSeconds, stepSummary } from './graph';
import { draftOf, newDraft, parseValue, serverErrors, toConfig } from './stepDraft';

const step = (type: Step['type'], config: Record<string, unknown>, id = 's1'): Step => ({
  id,
  workflowId: 'w',
  type,
  name: 'Step',
  config,
  templateId: null,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
});
const link = (from: string, extra: Partial<Transition> = {}): Transition => ({
  id: `t-${from}-${extra.branch ?? extra.waitOutcome ?? ''}`,
  workflowId: 'w',
  fromStepId: from,
  toStepId: 'x',
  branch: null,
  waitOutcome: null,
  createdAt: '',
  ...extra,
});

describe('toConfig', () => {
  it("turns each type's inputs into the config the server takes", () => {
    const d = {
      ...newDraft('x'),
      templateId: 't1',
      amount: 2,
      unit: 'days' as const,
      eventName: ' paid ',
      timeoutAmount: 3,
      timeoutUnit: 'hours' as const,
    };
    expect(toConfig('SEND_EMAIL', d).config).toEqual({ templateId: 't1' });
    // A fixed recipient set through the API survives an edit in the dashboard, and can be set there.
    const custom = draftOf(
      step('SEND_EMAIL', { templateId: 't1', recipient: { type: 'CUSTOM', email: 'team@x.test' } }),
    );
    expect(custom.recipientEmail).toBe('team@x.test');
    expect(toConfig('SEND_EMAIL', custom).config).toEqual({
      templateId: 't1',
      recipient: { type: 'CUSTOM', email: 'team@x.test' },
    });
    expect(toConfig('SEND_EMAIL', { ...d, recipientEmail: 'not an address' }).errors.recipientEmail).toBeDefined();
    expect(toConfig('DELAY', d).config).toEqual({ amount: 2, unit: 'days' });
    // A DELAY until the next window survives an edit, and a window that closes before it opens is refused.
    const window = { from: '08:00', to: '12:00', days: ['sat'] };
    const waits = draftOf(step('DELAY', { until: 'window', window }));
    expect(waits.delayUntil).toBe('window');
    expect(toConfig('DELAY', waits).config).toEqual({ until: 'window', window });
    expect(toConfig('DELAY', { ...waits, windowTo: '07:00' }).errors.windowTo).toBeDefined();
    expect(toConfig('DELAY', { ...waits, windowDays: [] }).errors.windowDays).toBeDefined();
    expect(stepSummary(step('DELAY', { until: 'window', window }))).toContain('08:00–12:00');
    expect(toConfig('WAIT_FOR_EVENT', d).config).toEqual({ eventName: 'paid', timeout: 3 * 3600 });
    expect(toConfig('WAIT_FOR_EVENT', { ...d, timeoutAmount: '' }).config).toEqual({ eventName: 'paid' });
    const cond = { ...d, field: 'data.plan', operator: 'equals', value: 'pro' };
    expect(toConfig('CONDITION', cond).config).toEqual({ field: 'data.plan', operator: 'equals', value: 'pro' });
    expect(toConfig('CONDITION', { ...cond, value: '10' }).config.value).toBe(10);
    // A text field keeps "10" as text.
    const fields = { fields: [{ field: 'data.plan', type: 'string', source: 'contact' }], events: [], operators: [] };
    expect(toConfig('CONDITION', { ...cond, value: '10' }, fields).config.value).toBe('10');
    expect(toConfig('CONDITION', { ...cond, operator: 'exists' }).config).toEqual({
      field: 'data.plan',
      operator: 'exists',
    });
    expect(
      toConfig('WEBHOOK', { ...d, url: 'https://h.test/x', method: 'PUT', headers: [{ key: 'X-Key', value: 'k' }] })
        .config,
    ).toEqual({ url: 'https://h.test/x', method: 'PUT', headers: { 'X-Key': 'k' } });
    expect(
      toConfig('UPDATE_CONTACT', {
        ...d,
        updates: [
          { key: 'score', value: '3' },
          { key: 'tier', value: 'gold' },
        ],
        subscriptionAction: 'unsubscribe',
      }).config,
    ).toEqual({ updates: { score: 3, tier: 'gold' }, subscriptionAction: 'unsubscribe' });
    expect(toConfig('EXIT', { ...d, reason: '' }).config).toEqual({});
  });

  it('refuses what the server would, at the input', () => {
    const d = newDraft('');
    expect(Object.keys(toConfig('SEND_EMAIL', d).errors).sort()).toEqual(['name', 'templateId']);
    expect(toConfig('DELAY', { ...d, name: 'x', amount: 0 }).errors).toEqual({ amount: 'Enter a duration above 0' });
    expect(toConfig('WEBHOOK', { ...d, name: 'x', url: 'ftp://x' }).errors.url).toBeDefined();
    expect(toConfig('CONDITION', { ...d, name: 'x' }).errors.field).toBeDefined();
  });

  it('round-trips a stored step through its draft', () => {
    const wait = step('WAIT_FOR_EVENT', { eventName: 'paid', timeout: 172800 });
    expect(toConfig('WAIT_FOR_EVENT', draftOf(wait)).config).toEqual(wait.config);
    const upd = step('UPDATE_CONTACT', { updates: { n: 1, tag: 'a' }, subscriptionAction: 'none' });
    expect(toConfig('UPDATE_CONTACT', draftOf(upd)).config).toEqual(upd.config);
  });
});

describe('helpers', () => {
  it('parses typed values and keeps text', () => {
    expect([
      parseValue('1.5'),
      parseValue('true'),
      parseValue('null'),
      parseValue('pro'),
      parseValue('[1]'),
      parseValue('{bad'),
    ]).toEqual([1.5, true, null, 'pro', [1], '{bad']);
  });

  it("maps the server's field errors to inputs", () => {
    expect(
      serverErrors([
        { field: 'config.amount', message: 'A delay is at most 365 days' },
        { field: 'config.headers.X', message: 'bad' },
      ]),
    ).toEqual({ errors: { amount: 'A delay is at most 365 days', headers: 'bad' }, all: true });
    expect(serverErrors([{ field: 'toStepId', message: 'cycle' }]).all).toBe(false);
  });

  it('offers the free ways out of a step', () => {
    expect(freeOutlets(step('CONDITION', {}), [link('s1', { branch: 'yes' })])).toEqual([{ branch: 'no' }]);
    expect(freeOutlets(step('WAIT_FOR_EVENT', {}), [])).toEqual([{ waitOutcome: 'EVENT' }, { waitOutcome: 'TIMEOUT' }]);
    expect(freeOutlets(step('DELAY', {}), [link('s1')])).toEqual([]);
    expect(freeOutlets(step('EXIT', {}), [])).toEqual([]);
  });

  it('summarises configs and splits seconds into the largest unit', () => {
    expect(splitSeconds(7200)).toEqual({ amount: 2, unit: 'hours' });
    expect(splitSeconds(90)).toEqual({ amount: 2, unit: 'minutes' });
    expect(stepSummary(step('DELAY', { amount: 1, unit: 'days' }))).toBe('Wait 1 day');
    expect(stepSummary(step('WAIT_FOR_EVENT', { eventName: 'paid', timeout: 259200 }))).toBe(
      'Until "paid", at most 3 days',
    );
    expect(stepSummary(step('SEND_EMAIL', { templateId: 't' }), () => 'Welcome')).toBe('Template: Welcome');
    expect(stepSummary(step('CONDITION', { field: 'data.plan', operator: 'equals', value: 'pro' }))).toBe(
      'plan is "pro"',
    );
  });
});
